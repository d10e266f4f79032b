"""PATCH /realm: validation, permissions, group settings and the realm update_dict event."""
from __future__ import annotations

import threading

import pytest

from chalicelib.actions.workflows import realm_update as realm_settings
from chalicelib.actions.workflows.realm_update import do_update_realm
from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import REALM_SETTINGS_CAPABILITY
from chalicelib.core.principal import Principal
from chalicelib.rules.realm_settings import system_group_id

EVERYONE, MEMBERS = system_group_id("role:everyone"), system_group_id("role:members")
ADMINS, MODERATORS = system_group_id("role:administrators"), system_group_id("role:moderators")


def test_admin_changes_settings_and_everyone_is_told(realm, register_queue, fetch_events,
                                                     drain_events):
    # GIVEN a member's queue for realm events, and one asking for this server's own settings
    queue_id = register_queue(realm.member, event_types=["realm"])["queue_id"]
    own = register_queue(realm.member, event_types=["realm"], client_capabilities={
        REALM_SETTINGS_CAPABILITY: True})["queue_id"]
    # WHEN an administrator changes plain, time-limit and group settings
    response = realm.admin.patch("/realm", {
        "allow_message_editing": False, "message_content_edit_limit_seconds": "unlimited",
        "move_messages_within_stream_limit_seconds": 3600, "topics_policy": "disable_empty_topic",
        "empty_topic_display_name": "misc", "message_content_delete_limit_seconds": 60,
        "message_edit_history_visibility_policy": "moves",
        "can_delete_own_message_group": {"new": MEMBERS},
        "can_move_messages_between_topics_group": {"new": MODERATORS, "old": EVERYONE},
        "can_resolve_topics_group": {"new": {"direct_members": [realm.member.user_id],
                                             "direct_subgroups": [ADMINS]}}})
    assert response.ok, response.json
    drain_events()
    # THEN one update_dict event per changed setting (as the reference sends them), in
    # the API's names, with null for "unlimited" and group settings as plain values
    events = fetch_events(realm.member, queue_id)
    assert {(e["type"], e["op"], e["property"]) for e in events} == {
        ("realm", "update_dict", "default")}
    assert all(len(e["data"]) == 1 for e in events)
    changes = {
        "allow_message_editing": False, "message_content_edit_limit_seconds": None,
        "move_messages_within_stream_limit_seconds": 3600,
        # told as itself from level 392 (as mandatory_topics below it: test_level_gates.py)
        "topics_policy": "disable_empty_topic",
        "message_content_delete_limit_seconds": 60,
        "message_edit_history_visibility_policy": "moves",
        "can_delete_own_message_group": MEMBERS,
        "can_move_messages_between_topics_group": MODERATORS,
        "can_resolve_topics_group": {"direct_members": [realm.member.user_id],
                                     "direct_subgroups": [ADMINS]}}
    assert {k: v for e in events for k, v in e["data"].items()} == changes
    # AND empty_topic_display_name, a setting of this server's own (the reference has no
    # such update_dict property at the advertised level), only to the queue that asked
    asked = fetch_events(realm.member, own)
    assert {k: v for e in asked for k, v in e["data"].items()} == {
        **changes, "empty_topic_display_name": "misc"}
    # AND registration shows the new values
    state = register_queue(realm.member, event_types=["realm"])
    assert state["realm_allow_message_editing"] is False
    assert state["realm_message_content_edit_limit_seconds"] is None
    assert state["realm_move_messages_within_stream_limit_seconds"] == 3600
    assert state["realm_mandatory_topics"] is True
    assert state["realm_topics_policy"] == "disable_empty_topic"
    assert state["realm_empty_topic_display_name"] == "misc"
    assert state["realm_can_move_messages_between_topics_group"] == MODERATORS


def test_members_cannot_change_settings(realm):
    response = realm.member.patch("/realm", {"allow_message_editing": False})
    assert response.status == 400 and "administrator" in response.json["msg"]
    assert realm.moderator.patch("/realm", {"allow_message_editing": False}).status == 400


@pytest.mark.parametrize("params, message", [
    ({"message_content_edit_limit_seconds": 0}, "above 0"),
    ({"message_content_edit_limit_seconds": -60}, "above 0"),
    ({"message_content_edit_limit_seconds": "soon"}, "message_content_edit_limit_seconds"),
    ({"move_messages_within_stream_limit_seconds": 0}, "move_messages_within_stream"),
    ({"move_messages_within_stream_limit_seconds": 1.5}, "move_messages_within_stream"),
    ({"move_messages_between_streams_limit_seconds": "forever"}, "move_messages_between"),
    ({"move_messages_between_streams_limit_seconds": -1}, "move_messages_between"),
    ({"topics_policy": "sometimes"}, "topics_policy"),
    ({"message_content_delete_limit_seconds": 0}, "above 0"),
    ({"message_content_delete_limit_seconds": "never"}, "message_content_delete_limit"),
    ({"message_edit_history_visibility_policy": "some"}, "message_edit_history_visibility"),
    ({"can_delete_any_message_group": {"new": 9999}}, "No user group with ID 9999 exists"),
    ({"can_delete_any_message_group": {"new": EVERYONE}}, "cannot use the group 'role:everyone'"),
    ({"topics_policy": "inherit"}, "topics_policy"),   # only channels inherit
    ({"empty_topic_display_name": " "}, "empty-topic display name"),
    ({"empty_topic_display_name": "x" * 61}, "empty-topic display name"),
    ({"can_resolve_topics_group": {"new": 9999}}, "No user group with ID 9999 exists"),
    ({"can_resolve_topics_group": {"new": {"direct_members": [9999],
                                           "direct_subgroups": []}}}, "No user with ID 9999 exists"),
    ({"can_resolve_topics_group": {"new": MODERATORS, "old": ADMINS}},
     "'old' value does not match the expected value."),
    ({"can_move_messages_between_channels_group": {"new": 9999}}, "No user group with ID"),
    ({"can_move_messages_between_channels_group": "members"}, "can_move_messages_between"),
    ({"can_move_messages_between_topics_group": {"new": {"members": [1]}}},
     "Invalid group setting value"),
    ({"can_mention_many_users_group": {"new": {"direct_members": [9999],
                                               "direct_subgroups": [ADMINS]}}},
     "No user with ID 9999 exists"),
    ({"can_mention_many_users_group": {"new": ADMINS, "old": MODERATORS}},
     "'old' value does not match the expected value."),
    ({"can_access_all_users_group": {"new": MODERATORS}}, "system groups"),
])
def test_invalid_values_change_nothing(realm, register_queue, params, message):
    response = realm.owner.patch("/realm", {**params, "allow_message_editing": False})
    assert response.status == 400 and message in response.json["msg"], response.json
    # A stale guard has the reference's own code; other bad values are BAD_REQUEST
    assert response.json["code"] == ("EXPECTATION_MISMATCH" if "'old'" in message
                                     else "BAD_REQUEST")
    assert "var_name" not in response.json
    state = register_queue(realm.owner, event_types=["realm"])
    assert state["realm_allow_message_editing"] is True


def test_invalid_boolean_is_refused(realm):
    response = realm.owner.patch("/realm", {"allow_message_editing": "maybe"})
    assert response.status == 400 and "allow_message_editing" in response.json["msg"]


def test_registration_carries_every_setting_default_and_changed(realm, register_queue):
    # GIVEN a new organization: the defaults
    state = register_queue(realm.member, event_types=["realm"])
    assert {k: state[k] for k in SETTINGS_STATE} == {
        "realm_allow_message_editing": True,
        "realm_message_content_edit_limit_seconds": 600,
        "realm_move_messages_within_stream_limit_seconds": 604800,
        "realm_move_messages_between_streams_limit_seconds": 604800,
        "realm_empty_topic_display_name": "general chat",
        "realm_mandatory_topics": False,
        "realm_can_resolve_topics_group": EVERYONE,
        "realm_can_move_messages_between_channels_group": MEMBERS,
        "realm_can_move_messages_between_topics_group": EVERYONE,
        "realm_can_access_all_users_group": EVERYONE,
        "realm_can_mention_many_users_group": ADMINS,
        "realm_message_content_delete_limit_seconds": 600,
        "realm_message_edit_history_visibility_policy": "all",
        "realm_allow_edit_history": True,
        "realm_can_delete_any_message_group": ADMINS,
        "realm_can_delete_own_message_group": EVERYONE,
    }
    # WHEN the owner changes every one of them
    anonymous = {"direct_members": [realm.member.user_id], "direct_subgroups": [MODERATORS]}
    assert realm.owner.patch("/realm", {
        "allow_message_editing": False, "message_content_edit_limit_seconds": 120,
        "move_messages_within_stream_limit_seconds": "unlimited",
        "move_messages_between_streams_limit_seconds": 60,
        "empty_topic_display_name": "(misc)", "topics_policy": "disable_empty_topic",
        "can_resolve_topics_group": {"new": MODERATORS},
        "can_move_messages_between_channels_group": {"new": anonymous},
        "can_move_messages_between_topics_group": {"new": ADMINS, "old": EVERYONE},
        "can_access_all_users_group": {"new": MEMBERS},
        "can_mention_many_users_group": {"new": EVERYONE},
        "message_content_delete_limit_seconds": "unlimited",
        "message_edit_history_visibility_policy": "none",
        "can_delete_any_message_group": {"new": MODERATORS},
        "can_delete_own_message_group": {"new": MEMBERS, "old": EVERYONE},
    }).ok
    # THEN registration shows every new value
    state = register_queue(realm.member, event_types=["realm"])
    assert {k: state[k] for k in SETTINGS_STATE} == {
        "realm_allow_message_editing": False,
        "realm_message_content_edit_limit_seconds": 120,
        "realm_move_messages_within_stream_limit_seconds": None,
        "realm_move_messages_between_streams_limit_seconds": 60,
        "realm_empty_topic_display_name": "(misc)",
        "realm_mandatory_topics": True,
        "realm_can_resolve_topics_group": MODERATORS,
        "realm_can_move_messages_between_channels_group": anonymous,
        "realm_can_move_messages_between_topics_group": ADMINS,
        "realm_can_access_all_users_group": MEMBERS,
        "realm_can_mention_many_users_group": EVERYONE,
        "realm_message_content_delete_limit_seconds": None,
        "realm_message_edit_history_visibility_policy": "none",
        "realm_allow_edit_history": False,
        "realm_can_delete_any_message_group": MODERATORS,
        "realm_can_delete_own_message_group": MEMBERS,
    }


SETTINGS_STATE = (
    "realm_allow_message_editing", "realm_message_content_edit_limit_seconds",
    "realm_move_messages_within_stream_limit_seconds",
    "realm_move_messages_between_streams_limit_seconds", "realm_empty_topic_display_name",
    "realm_mandatory_topics", "realm_can_resolve_topics_group",
    "realm_can_move_messages_between_channels_group",
    "realm_can_move_messages_between_topics_group", "realm_can_access_all_users_group",
    "realm_can_mention_many_users_group", "realm_message_content_delete_limit_seconds",
    "realm_message_edit_history_visibility_policy", "realm_allow_edit_history",
    "realm_can_delete_any_message_group", "realm_can_delete_own_message_group")


def test_racing_changes_with_the_same_old_value_exactly_one_wins(realm, register_queue,
                                                                 monkeypatch):
    # GIVEN two administrators who both read the default value of a group setting
    # (each waits before writing until the other has read it too)
    admin = Principal(realm.realm_id, realm.admin.user_id, realm.admin.email, 200, False)
    owner = Principal(realm.realm_id, realm.owner.user_id, realm.owner.email, 100, False)
    both_read = threading.Barrier(2, timeout=10)
    write = realm_settings._write_changes
    first_write = threading.local()

    def write_after_both_read(*args):
        if not getattr(first_write, "done", False):
            first_write.done = True
            both_read.wait()
        return write(*args)

    monkeypatch.setattr(realm_settings, "_write_changes", write_after_both_read)
    results: dict[int, object] = {}

    def change(caller: Principal, new: int) -> None:
        try:
            results[new] = do_update_realm(caller, {
                "can_resolve_topics_group": {"new": new, "old": EVERYONE}})
        except ApiError as error:
            results[new] = error.msg

    # WHEN both replace it at the same time, each expecting the old value
    threads = [threading.Thread(target=change, args=args)
               for args in ((admin, ADMINS), (owner, MODERATORS))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN exactly one change wins; the other is told the value is no longer the old one
    winners = [new for new, result in results.items() if result == {}]
    assert len(winners) == 1, results
    [loser] = [r for r in results.values() if r != {}]
    assert "does not match" in str(loser)
    state = register_queue(realm.member, event_types=["realm"])
    assert state["realm_can_resolve_topics_group"] == winners[0]


def test_unchanged_values_write_no_event(realm, register_queue, fetch_events, drain_events):
    queue_id = register_queue(realm.member, event_types=["realm"])["queue_id"]
    response = realm.owner.patch("/realm", {
        "allow_message_editing": True,
        "can_access_all_users_group": {"new": EVERYONE, "old": EVERYONE}})
    assert response.ok, response.json
    # AND a real change after them is the queue's only event (the queue does hear changes)
    assert realm.owner.patch("/realm", {"allow_message_editing": False}).ok
    drain_events()
    assert [e["data"] for e in fetch_events(realm.member, queue_id)] == [
        {"allow_message_editing": False}]


def test_wildcard_permission_follows_can_mention_many_users_group(realm):
    # GIVEN a channel above the large-channel threshold (15) and a member who may not
    extra = [realm.add_user(f"Person {n}") for n in range(16)]
    principals = [a.user_id for a in extra] + [realm.member.user_id]
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "big"}], "principals": principals}).ok
    send = {"type": "stream", "to": "big", "topic": "t", "content": "@**all** hello"}
    assert realm.member.post("/messages", send).json["code"] == \
        "STREAM_WILDCARD_MENTION_NOT_ALLOWED"
    # WHEN the setting names the member directly
    assert realm.owner.patch("/realm", {"can_mention_many_users_group": {
        "new": {"direct_members": [realm.member.user_id], "direct_subgroups": [ADMINS]}}}).ok
    # THEN the member may, and a moderator still may not
    assert realm.member.post("/messages", send).ok
    assert realm.moderator.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "big"}]}).ok
    assert realm.moderator.post("/messages", send).json["code"] == \
        "STREAM_WILDCARD_MENTION_NOT_ALLOWED"
