"""User group members and subgroups (§4.13, §4.14): permissions, cycles, nesting,
events, and atomicity under concurrent changes."""
from __future__ import annotations

from chalicelib.models.realms import Realm
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User
from tests.functional.user_group_helpers import (
    ADMINS,
    MEMBERS,
    NOBODY,
    assert_error,
    create_ok,
    group_events,
    group_ids_of,
    groups_by_id,
    is_member,
)


def test_members(realm, register_queue, fetch_events, drain_events):
    bot = realm.add_user("Helper Bot", is_bot=True)
    gone = realm.add_user("Gone User")
    assert realm.admin.delete(f"/users/{gone.user_id}").ok
    group_id = create_ok(realm.member, "Crew", [realm.member.user_id])
    path = f"/user_groups/{group_id}/members"
    drain_events()
    queue = register_queue(realm.admin, event_types=["user_group"])["queue_id"]
    # Errors, as the reference
    assert_error(realm.member.post(path), "Nothing to do")
    assert_error(realm.member.post(path, {"add": [realm.member.user_id]}),
                 f"User {realm.member.user_id} already belongs to this group")
    assert_error(realm.member.post(path, {"delete": [realm.admin.user_id]}),
                 f"User {realm.admin.user_id} does not belong to this group")
    assert_error(realm.member.post(path, {"add": [999999]}), "No user with ID 999999 exists")
    assert_error(realm.member.post(path, {"add": [gone.user_id]}),
                 f"No user with ID {gone.user_id} exists")
    assert_error(realm.member.post("/user_groups/99999/members", {"add": [bot.user_id]}),
                 "No such user group exists")
    assert_error(realm.guest.post(path, {"add": [realm.guest.user_id]}),
                 "Guests cannot do this")
    # WHEN the creator adds a user and a bot, then removes the user
    assert realm.member.post(path, {"add": [realm.admin.user_id, bot.user_id]}).ok
    assert realm.member.post(path, {"delete": [realm.admin.user_id]}).ok
    # THEN the group has the member and the bot
    assert groups_by_id(realm.member)[group_id]["members"] == sorted(
        [realm.member.user_id, bot.user_id])
    # AND the events say what changed
    assert group_events(drain_events, fetch_events, realm.admin, queue) == [
        {"type": "user_group", "op": "add_members", "group_id": group_id,
         "user_ids": sorted([realm.admin.user_id, bot.user_id])},
        {"type": "user_group", "op": "remove_members", "group_id": group_id,
         "user_ids": [realm.admin.user_id]}]


def test_member_permissions(realm):
    group_id = create_ok(realm.member, "Club", [realm.member.user_id])
    path = f"/user_groups/{group_id}/members"
    # Others may neither add nor remove by default (can_join_group is nobody)...
    assert_error(realm.moderator.post(path, {"add": [realm.moderator.user_id]}),
                 "You are not allowed to do this.")
    assert_error(realm.moderator.post(path, {"delete": [realm.member.user_id]}),
                 "You are not allowed to do this.")
    # ... but an owner may (can_manage_all_groups)
    assert realm.owner.post(path, {"add": [realm.admin.user_id]}).ok
    # Anyone may leave (can_leave_group is everyone)
    assert realm.admin.post(path, {"delete": [realm.admin.user_id]}).ok
    # WHEN joining is opened to members, a moderator may join but not add others
    assert realm.member.patch(f"/user_groups/{group_id}", {
        "can_join_group": {"new": MEMBERS}}).ok
    assert realm.moderator.post(path, {"add": [realm.moderator.user_id]}).ok
    assert_error(realm.moderator.post(path, {"add": [realm.admin.user_id]}),
                 "You are not allowed to do this.")
    # AND when leaving is closed, a member may not leave, but the creator may remove them
    assert realm.member.patch(f"/user_groups/{group_id}", {
        "can_leave_group": {"new": NOBODY}}).ok
    assert_error(realm.moderator.post(path, {"delete": [realm.moderator.user_id]}),
                 "You are not allowed to do this.")
    assert realm.member.post(path, {"delete": [realm.moderator.user_id]}).ok
    # AND can_add_members_group lets its members add others
    assert realm.member.patch(f"/user_groups/{group_id}", {
        "can_add_members_group": {"new": {"direct_members": [realm.admin.user_id],
                                          "direct_subgroups": []}}}).ok
    assert realm.admin.post(path, {"add": [realm.moderator.user_id]}).ok
    assert_error(realm.admin.post(path, {"delete": [realm.moderator.user_id]}),
                 "You are not allowed to do this.")


def test_subgroups_and_cycles(realm, register_queue, fetch_events, drain_events):
    a = create_ok(realm.member, "A")
    b = create_ok(realm.member, "B")
    c = create_ok(realm.member, "C")
    drain_events()
    queue = register_queue(realm.admin, event_types=["user_group"])["queue_id"]
    # WHEN A contains B (through /subgroups) and B contains C (through /members)
    assert realm.member.post(f"/user_groups/{a}/subgroups", {"add": [b]}).ok
    assert realm.member.post(f"/user_groups/{b}/members", {"add_subgroups": [c]}).ok
    # THEN no cycle can be made, directly or through nesting
    assert_error(realm.member.post(f"/user_groups/{a}/subgroups", {"add": [a]}),
                 "cannot be a subgroup of itself")
    assert_error(realm.member.post(f"/user_groups/{b}/subgroups", {"add": [a]}),
                 "cannot be a subgroup of itself")
    assert_error(realm.member.post(f"/user_groups/{c}/subgroups", {"add": [a]}),
                 "cannot be a subgroup of itself")
    # AND the reference's other errors
    assert_error(realm.member.post(f"/user_groups/{a}/subgroups", {"add": [b]}),
                 f"Group {b} is already a subgroup of this group.")
    assert_error(realm.member.post(f"/user_groups/{a}/subgroups", {"delete": [c]}),
                 f"Group {c} is not one of this group's subgroups.")
    assert_error(realm.member.post(f"/user_groups/{a}/subgroups", {"add": [99999]}),
                 "No user group with ID 99999 exists")
    assert_error(realm.moderator.post(f"/user_groups/{a}/subgroups", {"add": [c]}),
                 "You are not allowed to do this.")
    # AND a system group may be a subgroup; removal works through both endpoints
    assert realm.member.post(f"/user_groups/{c}/subgroups", {"add": [ADMINS]}).ok
    assert realm.member.post(f"/user_groups/{c}/members", {"delete_subgroups": [ADMINS]}).ok
    assert realm.member.post(f"/user_groups/{a}/subgroups", {"delete": [b]}).ok
    listed = groups_by_id(realm.member)
    assert (listed[a]["direct_subgroup_ids"], listed[b]["direct_subgroup_ids"],
            listed[c]["direct_subgroup_ids"]) == ([], [c], [])
    # AND the events say what changed
    assert group_events(drain_events, fetch_events, realm.admin, queue) == [
        {"type": "user_group", "op": "add_subgroups", "group_id": a, "direct_subgroup_ids": [b]},
        {"type": "user_group", "op": "add_subgroups", "group_id": b, "direct_subgroup_ids": [c]},
        {"type": "user_group", "op": "add_subgroups", "group_id": c,
         "direct_subgroup_ids": [ADMINS]},
        {"type": "user_group", "op": "remove_subgroups", "group_id": c,
         "direct_subgroup_ids": [ADMINS]},
        {"type": "user_group", "op": "remove_subgroups", "group_id": a,
         "direct_subgroup_ids": [b]}]


def test_nested_membership(realm):
    gone = realm.add_user("Gone User")
    c = create_ok(realm.member, "C", [realm.guest.user_id, gone.user_id])
    b = create_ok(realm.member, "B", subgroups=[c])
    a = create_ok(realm.member, "A", subgroups=[b, ADMINS])
    # A user in C is a member of A through B, but not a direct one
    assert is_member(realm.member, a, realm.guest.user_id) is True
    assert is_member(realm.member, a, realm.guest.user_id, direct_member_only=True) is False
    assert is_member(realm.member, c, realm.guest.user_id, direct_member_only=True) is True
    # System subgroups decide by role
    assert is_member(realm.member, a, realm.owner.user_id) is True
    assert is_member(realm.member, a, realm.moderator.user_id) is False
    assert is_member(realm.member, MEMBERS, realm.member.user_id) is True
    assert is_member(realm.member, MEMBERS, realm.owner.user_id) is True
    assert is_member(realm.member, ADMINS, realm.owner.user_id, direct_member_only=True) is False
    assert is_member(realm.member, ADMINS, realm.admin.user_id, direct_member_only=True) is True
    assert is_member(realm.member, MEMBERS, realm.guest.user_id) is False
    # Deactivated users belong to no group
    assert is_member(realm.member, a, gone.user_id) is True
    assert realm.admin.delete(f"/users/{gone.user_id}").ok
    assert is_member(realm.member, a, gone.user_id) is False
    assert is_member(realm.member, c, gone.user_id, direct_member_only=True) is False
    assert_error(realm.member.get(f"/user_groups/{a}/members/999999"), "No such person in this organization.")
    assert_error(realm.member.get(f"/user_groups/99999/members/{realm.member.user_id}"),
                 "No such user group exists")


def test_the_reverse_index_follows_direct_membership(realm):
    member, admin, moderator = (realm.member.user_id, realm.admin.user_id,
                                realm.moderator.user_id)
    # GIVEN groups created with members (B also holds A as a subgroup)
    a = create_ok(realm.member, "A", [member, admin])
    b = create_ok(realm.member, "B", [member], subgroups=[a])
    assert (group_ids_of(realm, member), group_ids_of(realm, admin),
            group_ids_of(realm, moderator)) == ({a, b}, {a}, set())
    # WHEN one request adds two users to B and removes another
    path = f"/user_groups/{b}/members"
    assert realm.member.post(path, {"add": [admin, moderator], "delete": [member]}).ok
    # THEN each user's item lists exactly their direct groups (not those through subgroups)
    assert (group_ids_of(realm, member), group_ids_of(realm, admin),
            group_ids_of(realm, moderator)) == ({a}, {a, b}, {b})
    # AND leaving the last group leaves no set behind
    assert realm.member.post(f"/user_groups/{a}/members", {"delete": [member]}).ok
    assert User.get(realm.realm_id, member).group_ids is None


def test_more_users_than_one_transaction_holds(realm, register_queue, fetch_events,
                                               drain_events, monkeypatch):
    from pynamodb.connection import Connection

    users = [realm.add_user(f"Crowd {n}").user_id for n in range(150)]
    group_id = create_ok(realm.member, "Crowd")
    path = f"/user_groups/{group_id}/members"
    drain_events()
    queue = register_queue(realm.admin, event_types=["user_group"])["queue_id"]
    transactions: list[int] = []
    original = Connection.transact_write_items

    def counting(self, **kwargs):
        transactions.append(sum(len(kwargs[kind]) for kind in (
            "condition_check_items", "delete_items", "put_items", "update_items")))
        return original(self, **kwargs)
    monkeypatch.setattr(Connection, "transact_write_items", counting)
    # WHEN 150 users are added at once
    assert realm.member.post(path, {"add": users}).ok
    # THEN two transactions wrote them, each within DynamoDB's limit
    assert len(transactions) == 2 and max(transactions) <= 100
    assert set(UserGroup.get(realm.realm_id, group_id).direct_members) == set(users)
    assert all(group_id in (u.group_ids or ()) for u in User.batch_get(
        [(realm.realm_id, u) for u in users]))
    # AND each transaction told of its own users: together, all of them once
    events = group_events(drain_events, fetch_events, realm.admin, queue)
    added = [u for e in events if e["op"] == "add_members" for u in e["user_ids"]]
    assert len(events) == 2 and sorted(added) == sorted(users)
    # WHEN 40 leave and the same request comes again (a client retrying after a timeout)
    assert realm.member.post(path, {"delete": users[:40]}).ok
    assert realm.member.post(path, {"add": users}).ok
    # THEN the users already in are skipped and the rest join
    assert set(UserGroup.get(realm.realm_id, group_id).direct_members) == set(users)
    later = group_events(drain_events, fetch_events, realm.admin, queue)[len(events):]
    assert [(e["op"], sorted(e["user_ids"])) for e in later] == [
        ("remove_members", sorted(users[:40])), ("add_members", sorted(users[:40]))]
    # AND a group created with 120 members gets them all, also in two transactions
    transactions.clear()
    big = create_ok(realm.member, "Big crowd", users[:120])
    assert len(transactions) == 2
    assert set(UserGroup.get(realm.realm_id, big).direct_members) == set(users[:120])
    assert all(big in (u.group_ids or ()) for u in User.batch_get(
        [(realm.realm_id, u) for u in users[:120]]))


def test_a_member_added_while_being_deactivated_is_refused(realm, monkeypatch):
    from chalicelib.actions.groups import members as user_group_members
    from chalicelib.actions.users import deactivation
    from chalicelib.core.principal import Principal

    group_id = create_ok(realm.member, "Race", [realm.member.user_id])
    target = realm.add_user("Soon Gone").user_id
    admin = Principal(realm.realm_id, realm.admin.user_id, realm.admin.email, 200, False)
    real_check = user_group_members.check_users
    pending = [True]

    def read_then_deactivated(realm_id, user_ids):
        real_check(realm_id, user_ids)   # the request reads the user as active...
        if pending and pending.pop():    # ...and an administrator deactivates them now
            deactivation.do_deactivate_user(admin, target, None)
    monkeypatch.setattr(user_group_members, "check_users", read_then_deactivated)
    # WHEN the request writes, THEN the user's condition fails, and reading again refuses
    assert_error(realm.member.post(f"/user_groups/{group_id}/members", {"add": [target]}),
                 f"No user with ID {target} exists")
    # AND the deactivated user is in no group
    assert set(UserGroup.get(realm.realm_id, group_id).direct_members) == {
        realm.member.user_id}
    assert group_ids_of(realm, target) == set()


def test_concurrent_changes_all_stick(realm, monkeypatch):
    from chalicelib.actions.groups import members as user_group_members

    group_id = create_ok(realm.member, "Busy", [realm.member.user_id])
    path = f"/user_groups/{group_id}/members"
    # GIVEN a request that first reads the group as it was before the admin joined
    stale = [UserGroup.get(realm.realm_id, group_id)]
    assert realm.member.post(path, {"add": [realm.admin.user_id]}).ok
    real = user_group_members.get_user_group
    monkeypatch.setattr(user_group_members, "get_user_group",
                        lambda realm_id, gid: stale.pop() if stale else real(realm_id, gid))
    # WHEN it adds the moderator and removes the member
    assert realm.member.post(path, {"add": [realm.moderator.user_id],
                                    "delete": [realm.member.user_id]}).ok
    # THEN its write lost to the version, it read again, and every change stuck
    assert set(UserGroup.get(realm.realm_id, group_id).direct_members) == {
        realm.admin.user_id, realm.moderator.user_id}


def test_stale_request_against_a_deactivated_group_is_refused(realm, monkeypatch, advertise):
    advertise(390)   # from level 391, a deactivated group's members may change
    from chalicelib.actions.groups import members as user_group_members

    group_id = create_ok(realm.member, "Closing")
    stale = [UserGroup.get(realm.realm_id, group_id)]
    assert realm.member.post(f"/user_groups/{group_id}/deactivate").ok
    real = user_group_members.get_user_group
    monkeypatch.setattr(user_group_members, "get_user_group",
                        lambda realm_id, gid: stale.pop() if stale else real(realm_id, gid))
    assert_error(realm.member.post(f"/user_groups/{group_id}/members",
                                   {"add": [realm.admin.user_id]}),
                 "is deactivated and cannot be changed")
    assert not UserGroup.get(realm.realm_id, group_id).direct_members


def test_concurrent_subgroup_additions_cannot_close_a_cycle(realm, monkeypatch):
    from chalicelib.actions.groups import members as user_group_members

    a = create_ok(realm.member, "A")
    b = create_ok(realm.member, "B")
    # GIVEN a request that checked for cycles before another made A contain B
    stale_realm = [Realm.get(realm.realm_id)]
    assert realm.member.post(f"/user_groups/{a}/subgroups", {"add": [b]}).ok
    stale_group = [UserGroup.get(realm.realm_id, b)]
    real_realm, real_check = user_group_members.get_realm, user_group_members._check_no_cycle
    skipped = [True]
    monkeypatch.setattr(user_group_members, "get_realm", lambda realm_id: (
        stale_realm.pop() if stale_realm else real_realm(realm_id)))
    monkeypatch.setattr(user_group_members, "_check_no_cycle", lambda *args: (
        skipped.pop() if skipped else real_check(*args)))
    monkeypatch.setattr(user_group_members, "get_user_group", lambda realm_id, gid: (
        stale_group.pop() if stale_group else UserGroup.get(realm_id, gid)))
    # WHEN it makes B contain A, THEN the realm's subgroup version stops the first write,
    # and the second attempt sees the cycle
    assert_error(realm.member.post(f"/user_groups/{b}/subgroups", {"add": [a]}),
                 "cannot be a subgroup of itself")
    assert not UserGroup.get(realm.realm_id, b).direct_subgroups




def test_system_groups_follow_roles(realm):
    # Every realm has the seven role-based system groups, nested as the reference nests them
    groups = {g["name"]: g for g in groups_by_id(realm.member).values() if g["is_system_group"]}
    assert sorted(groups) == sorted(["role:owners", "role:administrators", "role:moderators",
                                     "role:fullmembers", "role:members", "role:everyone",
                                     "role:nobody"])
    accounts = [realm.owner, realm.admin, realm.moderator, realm.member, realm.guest]
    expected = {"role:owners": 1, "role:administrators": 2, "role:moderators": 3,
                "role:fullmembers": 4, "role:members": 4, "role:everyone": 5, "role:nobody": 0}
    for name, count in expected.items():
        got = [is_member(realm.member, groups[name]["id"], a.user_id) for a in accounts]
        assert got == [True] * count + [False] * (5 - count), name
