"""User groups: create, list, edit, deactivate, members, subgroups, events, registration."""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib.actions.realms import system_group_id
from chalicelib.models.realms import Realm
from chalicelib.models.user_groups import UserGroup

EVERYONE = system_group_id("role:everyone")
MEMBERS = system_group_id("role:members")
ADMINS = system_group_id("role:administrators")
OWNERS = system_group_id("role:owners")
NOBODY = system_group_id("role:nobody")


def create(account, name: str, members: list[int] | None = None, **params: Any):
    return account.post("/user_groups/create", {"name": name, "description": f"about {name}",
                                                "members": members or [], **params})


def create_ok(account, name: str, members: list[int] | None = None, **params: Any) -> int:
    response = create(account, name, members, **params)
    assert response.ok, response.json
    return response.json["group_id"]


def groups_by_id(account, **params: Any) -> dict[int, dict[str, Any]]:
    response = account.get("/user_groups", params)
    assert response.ok, response.json
    return {g["id"]: g for g in response.json["user_groups"]}


def set_realm_settings(realm, **settings: Any) -> None:
    record = Realm.get(realm.realm_id)
    record.settings = {**(record.settings.as_dict() if record.settings else {}), **settings}
    record.save()


def is_member(account, group_id: int, user_id: int, **params: Any) -> bool:
    response = account.get(f"/user_groups/{group_id}/members/{user_id}", params)
    assert response.ok, response.json
    return response.json["is_user_group_member"]


def assert_error(response, text: str, code: str = "BAD_REQUEST") -> None:
    assert response.status == 400 and response.json["result"] == "error", response.json
    assert response.json["code"] == code, response.json
    assert text in response.json["msg"], response.json


def group_events(drain_events, fetch_events, account, queue_id) -> list[dict[str, Any]]:
    drain_events()
    return [{k: v for k, v in e.items() if k != "id"}
            for e in fetch_events(account, queue_id) if e["type"] == "user_group"]


def test_create_and_list(realm, register_queue, fetch_events, drain_events):
    # GIVEN a watcher's queue
    drain_events()
    queue = register_queue(realm.admin, event_types=["user_group"])["queue_id"]
    # WHEN a member creates a group with two members
    group_id = create_ok(realm.member, "Support", [realm.member.user_id, realm.admin.user_id])
    # THEN it is listed in the reference's shape, with the default permission settings
    group = groups_by_id(realm.moderator)[group_id]
    assert group["date_created"] > 0
    assert {k: v for k, v in group.items() if k != "date_created"} == {
        "id": group_id, "name": "Support", "description": "about Support",
        "members": sorted([realm.member.user_id, realm.admin.user_id]),
        "direct_subgroup_ids": [], "is_system_group": False, "deactivated": False,
        "creator_id": realm.member.user_id,
        "can_add_members_group": {"direct_members": [realm.member.user_id],
                                  "direct_subgroups": []},
        "can_join_group": NOBODY, "can_leave_group": EVERYONE,
        "can_manage_group": {"direct_members": [realm.member.user_id], "direct_subgroups": []},
        "can_mention_group": EVERYONE, "can_remove_members_group": NOBODY}
    # AND the system groups carry their role-based members and nesting
    listed = groups_by_id(realm.member)
    assert listed[OWNERS]["members"] == [realm.owner.user_id]
    assert listed[OWNERS]["is_system_group"] is True
    assert listed[ADMINS]["members"] == [realm.admin.user_id]
    assert listed[ADMINS]["direct_subgroup_ids"] == [OWNERS]
    assert listed[EVERYONE]["members"] == [realm.guest.user_id]
    # AND everyone heard of the new group
    [event] = group_events(drain_events, fetch_events, realm.admin, queue)
    assert event == {"type": "user_group", "op": "add", "group": group}


def test_create_rules(realm):
    bot = realm.add_user("Helper Bot", is_bot=True)
    gone = realm.add_user("Gone User")
    assert realm.admin.delete(f"/users/{gone.user_id}").ok
    create_ok(realm.member, "Taken")
    # Guests may not use user groups at all
    assert_error(create(realm.guest, "Guests"), "Not allowed for guest users")
    assert_error(realm.guest.get("/user_groups"), "Not allowed for guest users")
    # Names: unique without regard to case, not empty, no reserved prefix, bounded length
    assert_error(create(realm.admin, "taken"), "User group 'taken' already exists.")
    assert_error(create(realm.admin, "  "), "cannot be empty")
    assert_error(create(realm.admin, "role:custom"), "cannot start with 'role:'")
    assert_error(create(realm.admin, "x" * 101), "cannot exceed 100 characters")
    assert_error(realm.admin.post("/user_groups/create", {"name": "d", "description": "x" * 1025,
                                                          "members": []}),
                 "description cannot exceed")
    # Members must be active users of the realm; bots are allowed
    assert_error(create(realm.admin, "Ghosts", [999999]), "Invalid user ID: 999999")
    assert_error(create(realm.admin, "Ghosts", [gone.user_id]), f"Invalid user ID: {gone.user_id}")
    assert create(realm.admin, "Bots", [bot.user_id]).ok
    # Subgroups must exist
    assert_error(create(realm.admin, "Nested", subgroups=[999]), "Invalid user group ID: 999")
    # members is required
    missing = realm.admin.post("/user_groups/create", {"name": "m", "description": ""})
    assert missing.json["code"] == "REQUEST_VARIABLE_MISSING"
    # Settings: valid group-setting values, within the reference's limits
    assert_error(create(realm.admin, "Open", can_manage_group=EVERYONE),
                 "'can_manage_group' setting cannot be set to 'role:everyone' group.")
    assert_error(create(realm.admin, "Loud", can_mention_group=OWNERS),
                 "cannot be set to 'role:owners'")
    assert_error(create(realm.admin, "Bad", can_join_group=999), "Invalid user group ID: 999")
    assert_error(create(realm.admin, "Bad", can_join_group={"direct_members": [999999],
                                                             "direct_subgroups": []}),
                 "Invalid user ID: 999999")
    # Nothing was created by the refused requests
    names = {g["name"] for g in groups_by_id(realm.admin).values()}
    assert not names & {"taken", "Ghosts", "Nested", "Open", "Loud", "Bad", "role:custom"}


def test_create_needs_realm_permission(realm):
    # GIVEN only administrators may create groups
    set_realm_settings(realm, can_create_groups=ADMINS)
    # THEN a member is refused and an administrator is not
    assert_error(create(realm.member, "Mine"), "Insufficient permission")
    assert create(realm.admin, "Mine").ok


def test_create_with_settings_and_subgroups(realm):
    inner = create_ok(realm.admin, "Inner", [realm.moderator.user_id])
    anonymous = {"direct_members": [realm.moderator.user_id], "direct_subgroups": [inner]}
    group_id = create_ok(realm.admin, "Outer", subgroups=[inner], can_manage_group=anonymous,
                         can_join_group=MEMBERS)
    group = groups_by_id(realm.admin)[group_id]
    assert group["direct_subgroup_ids"] == [inner]
    assert group["can_manage_group"] == anonymous and group["can_join_group"] == MEMBERS
    # AND the moderator named by the setting may manage it, the creator no longer may
    assert realm.moderator.patch(f"/user_groups/{group_id}", {"description": "new"}).ok
    assert_error(realm.admin.patch(f"/user_groups/{group_id}", {"description": "again"}),
                 "Insufficient permission")


def test_update_name_description_and_settings(realm, register_queue, fetch_events,
                                              drain_events):
    group_id = create_ok(realm.member, "Design")
    other = create_ok(realm.member, "Other")
    drain_events()
    queue = register_queue(realm.admin, event_types=["user_group"])["queue_id"]
    # Nobody else than the creator (can_manage_group) or an owner (can_manage_all_groups)
    assert_error(realm.moderator.patch(f"/user_groups/{group_id}", {"name": "X"}),
                 "Insufficient permission")
    assert_error(realm.admin.patch(f"/user_groups/{group_id}", {"name": "X"}),
                 "Insufficient permission")
    assert_error(realm.member.patch(f"/user_groups/{group_id}"), "No new data supplied")
    assert_error(realm.member.patch(f"/user_groups/{group_id}", {"name": "other"}),
                 "User group 'other' already exists.")
    assert_error(realm.member.patch(f"/user_groups/{group_id}", {"name": "role:x"}),
                 "cannot start with")
    assert_error(realm.member.patch("/user_groups/99999", {"name": "X"}), "Invalid user group")
    # WHEN the creator renames it and an owner changes a setting
    assert realm.member.patch(f"/user_groups/{group_id}", {"name": "UX",
                                                           "description": "Users"}).ok
    assert_error(realm.owner.patch(f"/user_groups/{group_id}", {
        "can_join_group": {"new": MEMBERS, "old": EVERYONE}}),
        "'old' value of can_join_group does not match")
    assert realm.owner.patch(f"/user_groups/{group_id}", {
        "can_join_group": {"new": MEMBERS, "old": NOBODY}}).ok
    # THEN the list shows it, the old name is free and the new one is taken
    group = groups_by_id(realm.member)[group_id]
    assert (group["name"], group["description"], group["can_join_group"]) == (
        "UX", "Users", MEMBERS)
    assert create(realm.member, "design").ok
    assert_error(create(realm.member, "ux"), "already exists")
    # AND update events carry only what changed
    events = [e for e in group_events(drain_events, fetch_events, realm.admin, queue)
              if e["op"] == "update"]
    assert events == [
        {"type": "user_group", "op": "update", "group_id": group_id,
         "data": {"name": "UX", "description": "Users"}},
        {"type": "user_group", "op": "update", "group_id": group_id,
         "data": {"can_join_group": MEMBERS}}]
    assert other


def test_system_groups_are_immutable(realm):
    for response in (
        realm.owner.patch(f"/user_groups/{MEMBERS}", {"name": "people"}),
        realm.owner.post(f"/user_groups/{MEMBERS}/members", {"add": [realm.guest.user_id]}),
        realm.owner.post(f"/user_groups/{MEMBERS}/subgroups", {"add": [ADMINS]}),
        realm.owner.post(f"/user_groups/{MEMBERS}/deactivate"),
    ):
        assert_error(response, "System groups cannot be modified.")
    assert groups_by_id(realm.owner)[MEMBERS]["name"] == "role:members"


def test_deactivate(realm, register_queue, fetch_events, drain_events):
    group_id = create_ok(realm.member, "Old team", [realm.member.user_id])
    target = create_ok(realm.member, "Target")
    drain_events()
    queue = register_queue(realm.admin, event_types=["user_group"])["queue_id"]
    assert_error(realm.moderator.post(f"/user_groups/{group_id}/deactivate"),
                 "Insufficient permission")
    # WHEN the creator deactivates it
    assert realm.member.post(f"/user_groups/{group_id}/deactivate").ok
    # THEN it is listed only on request
    assert group_id not in groups_by_id(realm.member)
    assert groups_by_id(realm.member, include_deactivated_groups=True)[group_id][
        "deactivated"] is True
    # AND every change is refused
    for response in (
        realm.member.patch(f"/user_groups/{group_id}", {"name": "New team"}),
        realm.member.post(f"/user_groups/{group_id}/members", {"add": [realm.admin.user_id]}),
        realm.member.post(f"/user_groups/{group_id}/members",
                          {"delete": [realm.member.user_id]}),
        realm.member.post(f"/user_groups/{group_id}/subgroups", {"add": [target]}),
        realm.member.post(f"/user_groups/{group_id}/deactivate"),
    ):
        assert_error(response, f"User group {group_id} is deactivated and cannot be changed.")
    # AND it can neither become a subgroup nor a setting value
    assert_error(realm.member.post(f"/user_groups/{target}/subgroups", {"add": [group_id]}),
                 f"User group {group_id} is deactivated and cannot be a subgroup.")
    assert_error(create(realm.member, "New", can_join_group=group_id),
                 f"Invalid user group ID: {group_id}")
    # AND everyone heard of it
    events = group_events(drain_events, fetch_events, realm.admin, queue)
    assert events == [{"type": "user_group", "op": "update", "group_id": group_id,
                       "data": {"deactivated": True}}]


def test_deactivate_refused_while_in_use(realm):
    used = create_ok(realm.member, "Used")
    parent = create_ok(realm.member, "Parent", subgroups=[used])
    user = create_ok(realm.member, "User", can_join_group=used)
    set_realm_settings(realm, can_create_groups=used)
    # WHEN its creator tries to deactivate a group in use
    response = realm.member.post(f"/user_groups/{used}/deactivate")
    # THEN the reference's error names every use
    assert_error(response, "Cannot deactivate user group in use.",
                 code="CANNOT_DEACTIVATE_GROUP_IN_USE")
    assert response.json["objections"] == [
        {"type": "subgroup", "supergroup_ids": [parent]},
        {"type": "realm", "settings": ["can_create_groups"]},
        {"type": "user_group", "group_id": user, "settings": ["can_join_group"]}]
    assert UserGroup.get(realm.realm_id, used).deactivated is False
    # AND once the uses are gone it goes
    set_realm_settings(realm, can_create_groups=MEMBERS)
    assert realm.member.post(f"/user_groups/{parent}/subgroups", {"delete": [used]}).ok
    assert realm.member.post(f"/user_groups/{user}/deactivate").ok
    assert realm.member.post(f"/user_groups/{used}/deactivate").ok


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
                 f"User {realm.member.user_id} is already a member of this group")
    assert_error(realm.member.post(path, {"delete": [realm.admin.user_id]}),
                 f"There is no member '{realm.admin.user_id}' in this user group")
    assert_error(realm.member.post(path, {"add": [999999]}), "Invalid user ID: 999999")
    assert_error(realm.member.post(path, {"add": [gone.user_id]}),
                 f"Invalid user ID: {gone.user_id}")
    assert_error(realm.member.post("/user_groups/99999/members", {"add": [bot.user_id]}),
                 "Invalid user group")
    assert_error(realm.guest.post(path, {"add": [realm.guest.user_id]}),
                 "Not allowed for guest users")
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
                 "Insufficient permission")
    assert_error(realm.moderator.post(path, {"delete": [realm.member.user_id]}),
                 "Insufficient permission")
    # ... but an owner may (can_manage_all_groups)
    assert realm.owner.post(path, {"add": [realm.admin.user_id]}).ok
    # Anyone may leave (can_leave_group is everyone)
    assert realm.admin.post(path, {"delete": [realm.admin.user_id]}).ok
    # WHEN joining is opened to members, a moderator may join but not add others
    assert realm.member.patch(f"/user_groups/{group_id}", {
        "can_join_group": {"new": MEMBERS}}).ok
    assert realm.moderator.post(path, {"add": [realm.moderator.user_id]}).ok
    assert_error(realm.moderator.post(path, {"add": [realm.admin.user_id]}),
                 "Insufficient permission")
    # AND when leaving is closed, a member may not leave, but the creator may remove them
    assert realm.member.patch(f"/user_groups/{group_id}", {
        "can_leave_group": {"new": NOBODY}}).ok
    assert_error(realm.moderator.post(path, {"delete": [realm.moderator.user_id]}),
                 "Insufficient permission")
    assert realm.member.post(path, {"delete": [realm.moderator.user_id]}).ok
    # AND can_add_members_group lets its members add others
    assert realm.member.patch(f"/user_groups/{group_id}", {
        "can_add_members_group": {"new": {"direct_members": [realm.admin.user_id],
                                          "direct_subgroups": []}}}).ok
    assert realm.admin.post(path, {"add": [realm.moderator.user_id]}).ok
    assert_error(realm.admin.post(path, {"delete": [realm.moderator.user_id]}),
                 "Insufficient permission")


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
                 f"User group {b} is already a subgroup of this group.")
    assert_error(realm.member.post(f"/user_groups/{a}/subgroups", {"delete": [c]}),
                 f"User group {c} is not a subgroup of this group.")
    assert_error(realm.member.post(f"/user_groups/{a}/subgroups", {"add": [99999]}),
                 "Invalid user group ID: 99999")
    assert_error(realm.moderator.post(f"/user_groups/{a}/subgroups", {"add": [c]}),
                 "Insufficient permission")
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
    assert_error(realm.member.get(f"/user_groups/{a}/members/999999"), "No such user")
    assert_error(realm.member.get(f"/user_groups/99999/members/{realm.member.user_id}"),
                 "Invalid user group")


def test_hundred_members_in_one_write(realm, monkeypatch):
    from pynamodb.connection import Connection

    users = [realm.add_user(f"Crowd {n}").user_id for n in range(100)]
    group_id = create_ok(realm.member, "Crowd")
    writes: list[str] = []
    for name in ("transact_write_items", "update_item", "put_item", "batch_write_item"):
        original = getattr(Connection, name)

        def counting(self, *args, _name=name, _original=original, **kwargs):
            writes.append(_name)
            return _original(self, *args, **kwargs)
        monkeypatch.setattr(Connection, name, counting)
    # WHEN a hundred users are added at once
    assert realm.member.post(f"/user_groups/{group_id}/members", {"add": users}).ok
    # THEN one transaction wrote them all
    assert writes == ["transact_write_items"]
    assert set(UserGroup.get(realm.realm_id, group_id).direct_members) == set(users)


def test_concurrent_changes_all_stick(realm):
    from chalicelib.actions.user_groups import _apply

    group_id = create_ok(realm.member, "Busy", [realm.member.user_id])
    # GIVEN a copy of the group read before someone else added the admin
    stale = UserGroup.get(realm.realm_id, group_id)
    assert realm.member.post(f"/user_groups/{group_id}/members",
                             {"add": [realm.admin.user_id]}).ok
    # WHEN the stale writer adds the moderator and removes the member
    _apply(realm.realm_id, stale, {realm.moderator.user_id}, set(), adding=True)
    _apply(realm.realm_id, stale, {realm.member.user_id}, set(), adding=False)
    # THEN every change stuck
    assert set(UserGroup.get(realm.realm_id, group_id).direct_members) == {
        realm.admin.user_id, realm.moderator.user_id}


def test_stale_write_against_deactivated_group_is_refused(realm):
    from chalicelib.actions.user_groups import _apply
    from chalicelib.http.errors import ApiError

    group_id = create_ok(realm.member, "Closing")
    stale = UserGroup.get(realm.realm_id, group_id)
    assert realm.member.post(f"/user_groups/{group_id}/deactivate").ok
    with pytest.raises(ApiError, match="is deactivated and cannot be changed"):
        _apply(realm.realm_id, stale, {realm.admin.user_id}, set(), adding=True)
    assert not UserGroup.get(realm.realm_id, group_id).direct_members


def test_registration_state(realm, register_queue):
    active = create_ok(realm.member, "Active", [realm.member.user_id])
    retired = create_ok(realm.member, "Retired")
    assert realm.member.post(f"/user_groups/{retired}/deactivate").ok
    # WHEN a client registers for the groups
    state = register_queue(realm.admin, fetch_event_types=["realm_user_groups"])
    # THEN it gets what GET /user_groups gives, without deactivated groups
    listed = realm.admin.get("/user_groups").json["user_groups"]
    assert state["realm_user_groups"] == listed
    ids = {g["id"] for g in state["realm_user_groups"]}
    assert active in ids and retired not in ids and OWNERS in ids
    # AND with the capability, deactivated groups too
    state = register_queue(realm.admin, fetch_event_types=["realm_user_groups"],
                           client_capabilities={"include_deactivated_groups": True})
    assert retired in {g["id"] for g in state["realm_user_groups"]}
