"""PATCH /realm: validation, permissions, group settings and the realm update_dict event."""
from __future__ import annotations

import pytest

from chalicelib.actions.realms import system_group_id

EVERYONE, MEMBERS = system_group_id("role:everyone"), system_group_id("role:members")
ADMINS, MODERATORS = system_group_id("role:administrators"), system_group_id("role:moderators")


def test_admin_changes_settings_and_everyone_is_told(realm, register_queue, fetch_events,
                                                     drain_events):
    # GIVEN a member's queue for realm events
    queue_id = register_queue(realm.member, event_types=["realm"])["queue_id"]
    # WHEN an administrator changes plain, time-limit and group settings
    response = realm.admin.patch("/realm", {
        "allow_message_editing": False, "message_content_edit_limit_seconds": "unlimited",
        "move_messages_within_stream_limit_seconds": 3600, "topics_policy": "disable_empty_topic",
        "empty_topic_display_name": "misc",
        "can_move_messages_between_topics_group": {"new": MODERATORS, "old": EVERYONE},
        "can_resolve_topics_group": {"new": {"direct_members": [realm.member.user_id],
                                             "direct_subgroups": [ADMINS]}}})
    assert response.ok, response.json
    drain_events()
    # THEN one update_dict event carries every change, in the API's names
    [event] = fetch_events(realm.member, queue_id)
    assert (event["type"], event["op"], event["property"]) == ("realm", "update_dict", "default")
    assert event["data"] == {
        "allow_message_editing": False, "message_content_edit_limit_seconds": None,
        "move_messages_within_stream_limit_seconds": 3600,
        "topics_policy": "disable_empty_topic", "empty_topic_display_name": "misc",
        "can_move_messages_between_topics_group": MODERATORS,
        "can_resolve_topics_group": {"direct_members": [realm.member.user_id],
                                     "direct_subgroups": [ADMINS]}}
    # AND registration shows the new values
    state = register_queue(realm.member, event_types=["realm"])
    assert state["realm_allow_message_editing"] is False
    assert state["realm_message_content_edit_limit_seconds"] is None
    assert state["realm_move_messages_within_stream_limit_seconds"] == 3600
    assert state["realm_topics_policy"] == "disable_empty_topic"
    assert state["realm_empty_topic_display_name"] == "misc"
    assert state["realm_can_move_messages_between_topics_group"] == MODERATORS


def test_members_cannot_change_settings(realm):
    response = realm.member.patch("/realm", {"allow_message_editing": False})
    assert response.status == 400 and "administrator" in response.json["msg"]
    assert realm.moderator.patch("/realm", {"allow_message_editing": False}).status == 400


@pytest.mark.parametrize("params, message", [
    ({"message_content_edit_limit_seconds": 0}, "above 0"),
    ({"move_messages_between_streams_limit_seconds": "forever"}, "move_messages_between"),
    ({"topics_policy": "sometimes"}, "topics_policy"),
    ({"empty_topic_display_name": " "}, "empty-topic display name"),
    ({"can_resolve_topics_group": {"new": 9999}}, "Invalid user group ID: 9999"),
    ({"can_resolve_topics_group": {"new": {"direct_members": [9999],
                                           "direct_subgroups": []}}}, "Invalid user ID: 9999"),
    ({"can_resolve_topics_group": {"new": MODERATORS, "old": ADMINS}}, "does not match"),
    ({"can_access_all_users_group": {"new": MODERATORS}}, "system groups"),
])
def test_invalid_values_change_nothing(realm, register_queue, params, message):
    response = realm.owner.patch("/realm", {**params, "allow_message_editing": False})
    assert response.status == 400 and message in response.json["msg"], response.json
    state = register_queue(realm.owner, event_types=["realm"])
    assert state["realm_allow_message_editing"] is True


def test_unchanged_values_write_no_event(realm, register_queue, fetch_events, drain_events):
    queue_id = register_queue(realm.member, event_types=["realm"])["queue_id"]
    response = realm.owner.patch("/realm", {
        "allow_message_editing": True,
        "can_access_all_users_group": {"new": EVERYONE, "old": EVERYONE}})
    assert response.ok, response.json
    drain_events()
    assert fetch_events(realm.member, queue_id) == []


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
