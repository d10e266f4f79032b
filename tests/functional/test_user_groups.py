"""User groups: create, list, edit, deactivate, events, registration."""
from __future__ import annotations

from chalicelib.models.user_groups import UserGroup
from tests.functional.edit_helpers import channel
from tests.functional.user_group_helpers import (
    ADMINS,
    EVERYONE,
    MEMBERS,
    NOBODY,
    OWNERS,
    assert_error,
    create,
    create_ok,
    group_events,
    groups_by_id,
    set_realm_settings,
)


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
    assert_error(create(realm.guest, "Guests"), "Guests cannot do this")
    assert_error(realm.guest.get("/user_groups"), "Guests cannot do this")
    # Names: unique without regard to case, not empty, no reserved prefix, bounded length
    assert_error(create(realm.admin, "taken"), "A user group called 'taken' exists already.")
    assert_error(create(realm.admin, "  "), "cannot be empty")
    assert_error(create(realm.admin, "role:custom"), "may not begin with 'role:'")
    assert_error(create(realm.admin, "x" * 101), "at most 100 characters")
    assert_error(realm.admin.post("/user_groups/create", {"name": "d", "description": "x" * 1025,
                                                          "members": []}),
                 "description cannot exceed")
    # Members must be active users of the realm; bots are allowed
    assert_error(create(realm.admin, "Ghosts", [999999]), "No user with ID 999999 exists")
    assert_error(create(realm.admin, "Ghosts", [gone.user_id]), f"No user with ID {gone.user_id} exists")
    assert create(realm.admin, "Bots", [bot.user_id]).ok
    # Subgroups must exist
    assert_error(create(realm.admin, "Nested", subgroups=[999]), "No user group with ID 999 exists")
    # members is required
    missing = realm.admin.post("/user_groups/create", {"name": "m", "description": ""})
    assert missing.json["code"] == "REQUEST_VARIABLE_MISSING"
    # Settings: valid group-setting values, within the reference's limits
    assert_error(create(realm.admin, "Open", can_manage_group=EVERYONE),
                 "The setting 'can_manage_group' cannot use the group 'role:everyone'.")
    assert_error(create(realm.admin, "Loud", can_mention_group=OWNERS),
                 "cannot use the group 'role:owners'")
    assert_error(create(realm.admin, "Bad", can_join_group=999), "No user group with ID 999 exists")
    assert_error(create(realm.admin, "Bad", can_join_group={"direct_members": [999999],
                                                             "direct_subgroups": []}),
                 "No user with ID 999999 exists")
    # Nothing was created by the refused requests
    names = {g["name"] for g in groups_by_id(realm.admin).values()}
    assert not names & {"taken", "Ghosts", "Nested", "Open", "Loud", "Bad", "role:custom"}


def test_create_needs_realm_permission(realm):
    # GIVEN only administrators may create groups
    set_realm_settings(realm, can_create_groups=ADMINS)
    # THEN a member is refused and an administrator is not
    assert_error(create(realm.member, "Mine"), "You are not allowed to do this.")
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
                 "You are not allowed to do this.")


def test_update_name_description_and_settings(realm, register_queue, fetch_events,
                                              drain_events):
    group_id = create_ok(realm.member, "Design")
    other = create_ok(realm.member, "Other")
    drain_events()
    queue = register_queue(realm.admin, event_types=["user_group"])["queue_id"]
    # Nobody else than the creator (can_manage_group) or an owner (can_manage_all_groups)
    assert_error(realm.moderator.patch(f"/user_groups/{group_id}", {"name": "X"}),
                 "You are not allowed to do this.")
    assert_error(realm.admin.patch(f"/user_groups/{group_id}", {"name": "X"}),
                 "You are not allowed to do this.")
    assert_error(realm.member.patch(f"/user_groups/{group_id}"), "The request changes nothing")
    assert_error(realm.member.patch(f"/user_groups/{group_id}", {"name": "other"}),
                 "A user group called 'other' exists already.")
    assert_error(realm.member.patch(f"/user_groups/{group_id}", {"name": "role:x"}),
                 "may not begin with")
    assert_error(realm.member.patch("/user_groups/99999", {"name": "X"}), "No such user group exists")
    # WHEN the creator renames it and an owner changes a setting
    assert realm.member.patch(f"/user_groups/{group_id}", {"name": "UX",
                                                           "description": "Users"}).ok
    assert_error(realm.owner.patch(f"/user_groups/{group_id}", {
        "can_join_group": {"new": MEMBERS, "old": EVERYONE}}),
        "'old' value does not match the expected value.", "EXPECTATION_MISMATCH")
    assert realm.owner.patch(f"/user_groups/{group_id}", {
        "can_join_group": {"new": MEMBERS, "old": NOBODY}}).ok
    # THEN the list shows it, the old name is free and the new one is taken
    group = groups_by_id(realm.member)[group_id]
    assert (group["name"], group["description"], group["can_join_group"]) == (
        "UX", "Users", MEMBERS)
    assert create(realm.member, "design").ok
    assert_error(create(realm.member, "ux"), "exists already")
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


def test_deactivate(realm, register_queue, fetch_events, drain_events, advertise):
    advertise(390)   # members and subgroups are refused too below level 391
    group_id = create_ok(realm.member, "Old team", [realm.member.user_id])
    target = create_ok(realm.member, "Target")
    drain_events()
    queue = register_queue(realm.admin, event_types=["user_group"])["queue_id"]
    keeping = register_queue(realm.moderator, event_types=["user_group"], client_capabilities={
        "include_deactivated_groups": True})["queue_id"]
    assert_error(realm.moderator.post(f"/user_groups/{group_id}/deactivate"),
                 "You are not allowed to do this.")
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
                 f"No user group with ID {group_id} exists")
    # AND everyone heard of it: clients that keep deactivated groups get an update,
    # the others a remove, as the reference sends them
    assert group_events(drain_events, fetch_events, realm.moderator, keeping) == [
        {"type": "user_group", "op": "update", "group_id": group_id,
         "data": {"deactivated": True}}]
    assert group_events(drain_events, fetch_events, realm.admin, queue) == [
        {"type": "user_group", "op": "remove", "group_id": group_id}]
    # AND from level 391 on, its members and subgroups may change (nothing else)
    advertise(391)
    assert realm.member.post(f"/user_groups/{group_id}/members",
                             {"add": [realm.admin.user_id]}).ok
    assert realm.member.post(f"/user_groups/{group_id}/subgroups", {"add": [target]}).ok
    assert realm.member.post(f"/user_groups/{group_id}/members",
                             {"delete": [realm.admin.user_id]}).ok
    assert realm.member.post(f"/user_groups/{group_id}/subgroups", {"delete": [target]}).ok
    assert_error(realm.member.patch(f"/user_groups/{group_id}", {"name": "New team"}),
                 f"User group {group_id} is deactivated and cannot be changed.")


def test_deactivate_refused_while_in_use(realm):
    used = create_ok(realm.member, "Used")
    parent = create_ok(realm.member, "Parent", subgroups=[used])
    user = create_ok(realm.member, "User", can_join_group=used)
    set_realm_settings(realm, can_create_groups=used)
    stream_id = channel(realm.admin, "general", [realm.admin])
    assert realm.admin.patch(f"/streams/{stream_id}", {
        "can_remove_subscribers_group": {"new": used}}).ok
    # WHEN its creator tries to deactivate a group in use
    response = realm.member.post(f"/user_groups/{used}/deactivate")
    # THEN the reference's error names every use
    assert_error(response, "This user group is still in use, so it cannot be deactivated.",
                 code="CANNOT_DEACTIVATE_GROUP_IN_USE")
    assert response.json["objections"] == [
        {"type": "subgroup", "supergroup_ids": [parent]},
        {"type": "realm", "settings": ["can_create_groups"]},
        {"type": "user_group", "group_id": user, "settings": ["can_join_group"]},
        {"type": "channel", "channel_id": stream_id,
         "settings": ["can_remove_subscribers_group"]}]
    assert UserGroup.get(realm.realm_id, used).deactivated is False
    # AND once the uses are gone it goes
    set_realm_settings(realm, can_create_groups=MEMBERS)
    assert realm.admin.patch(f"/streams/{stream_id}", {
        "can_remove_subscribers_group": {"new": ADMINS}}).ok
    assert realm.member.post(f"/user_groups/{parent}/subgroups", {"delete": [used]}).ok
    assert realm.member.post(f"/user_groups/{user}/deactivate").ok
    assert realm.member.post(f"/user_groups/{used}/deactivate").ok


def test_anonymous_group_setting_of_one_group_is_that_group(realm):
    group_id = create_ok(realm.member, "Plain", can_join_group={
        "direct_members": [], "direct_subgroups": [MEMBERS]})
    assert groups_by_id(realm.member)[group_id]["can_join_group"] == MEMBERS
    # AND an empty one is nobody; a stale `old` in either shape is compared the same way
    assert realm.member.patch(f"/user_groups/{group_id}", {"can_join_group": {
        "new": {"direct_members": [], "direct_subgroups": []},
        "old": {"direct_members": [], "direct_subgroups": [MEMBERS]}}}).ok
    assert groups_by_id(realm.member)[group_id]["can_join_group"] == NOBODY


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
