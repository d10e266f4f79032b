"""Organization settings of the reference's 12.x series (levels 446-500) through PATCH
/realm, POST /register and realm update_dict events, each shown from its level."""
from __future__ import annotations

from chalicelib.rules.realm_settings import system_group_id
from tests.functional.user_group_helpers import ADMINS, MEMBERS, create_ok

FULL_MEMBERS = system_group_id("role:fullmembers")


def _changes(events):
    return {k: v for e in events if e["type"] == "realm" for k, v in e["data"].items()}


def test_media_preview_size_is_changed_and_told_from_level_469(
        realm, advertise, register_queue, fetch_events, drain_events):
    # Below the level the setting is neither shown nor told
    advertise(468)
    assert "realm_media_preview_size" not in register_queue(realm.member,
                                                            event_types=["realm"])
    advertise(469)
    state = register_queue(realm.member, event_types=["realm"])
    assert state["realm_media_preview_size"] == 100
    # WHEN an administrator makes previews twice as tall
    assert realm.admin.patch("/realm", {"media_preview_size": 200}).ok
    drain_events()
    # THEN everyone is told, and registration shows it
    assert _changes(fetch_events(realm.member, state["queue_id"])) == {
        "media_preview_size": 200}
    assert register_queue(realm.member, event_types=["realm"])[
        "realm_media_preview_size"] == 200
    # AND other sizes, and members, are refused
    for size in (0, 120, 300, "big"):
        answer = realm.admin.patch("/realm", {"media_preview_size": size})
        assert answer.status == 400 and answer.json["code"] == "BAD_REQUEST", size
    assert not realm.member.patch("/realm", {"media_preview_size": 150}).ok


def test_workplace_users_group_names_only_groups_administrators_manage(
        realm, advertise, register_queue, fetch_events, drain_events):
    advertise(476)
    assert "realm_workplace_users_group" not in register_queue(realm.member,
                                                               event_types=["realm"])
    advertise(477)
    state = register_queue(realm.member, event_types=["realm"])
    assert state["realm_workplace_users_group"] == MEMBERS   # everyone but guests
    # GIVEN a group its creator manages, and one only administrators manage
    by_member = create_ok(realm.member, "contractors", [realm.guest.user_id])
    by_admins = create_ok(realm.admin, "staff", [realm.member.user_id],
                          can_manage_group=ADMINS, can_add_members_group=ADMINS)
    # THEN the first is refused, directly or within another group, and nothing changes
    for value in (by_member, {"direct_members": [], "direct_subgroups": [by_member, ADMINS]}):
        answer = realm.admin.patch("/realm", {"workplace_users_group": {"new": value}})
        assert answer.status == 400 and "workplace_users_group" in answer.json["msg"]
    nested = create_ok(realm.admin, "all staff", [], subgroups=[by_member],
                       can_manage_group=ADMINS, can_add_members_group=ADMINS)
    assert not realm.admin.patch("/realm", {"workplace_users_group": nested}).ok
    # AND the second, or system groups, are taken and told to everyone
    for value in (by_admins, FULL_MEMBERS):
        assert realm.admin.patch("/realm", {"workplace_users_group": {"new": value}}).ok
    drain_events()
    assert [e["data"] for e in fetch_events(realm.member, state["queue_id"])] == [
        {"workplace_users_group": by_admins}, {"workplace_users_group": FULL_MEMBERS}]
    assert register_queue(realm.member, event_types=["realm"])[
        "realm_workplace_users_group"] == FULL_MEMBERS
