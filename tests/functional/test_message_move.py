"""PATCH /messages/{id}: moving messages between topics and channels, resolving topics."""
from __future__ import annotations

import pytest

from chalicelib.models.channels import Stream
from chalicelib.rules.realm_settings import system_group_id
from tests.functional.edit_helpers import channel, fetch, make_old, send, topic_ids

ADMINS = system_group_id("role:administrators")
MODERATORS = system_group_id("role:moderators")
DAY = 86400


def move(account, message_id: int, **params):
    return account.patch(f"/messages/{message_id}", params)


def notification_texts(account, stream: str, topic: str) -> list[str]:
    response = account.get("/messages", {
        "anchor": "newest", "num_before": 50, "num_after": 0,
        "narrow": [{"operator": "channel", "operand": stream},
                   {"operator": "topic", "operand": topic}], "apply_markdown": False})
    return [m["content"] for m in response.json["messages"]
            if m["sender_full_name"] == "Notification Bot"]


@pytest.fixture
def topic(realm):
    """Channel 'talk' with the owner and member subscribed; topic 'plans' of 4 messages."""
    channel(realm.owner, "talk", [realm.owner, realm.member, realm.moderator])
    ids = [send(realm.member, "talk", "plans", f"m{n}") for n in range(4)]
    return ids


@pytest.mark.parametrize("mode, moved", [("change_one", [1]), ("change_later", [1, 2, 3]),
                                         ("change_all", [0, 1, 2, 3])])
def test_propagate_modes_move_the_right_messages(realm, topic, mode, moved):
    response = move(realm.member, topic[1], topic="ideas", propagate_mode=mode,
                    send_notification_to_new_thread=False)
    assert response.ok, response.json
    assert response.json["detached_uploads"] == []
    assert topic_ids(realm.member, "talk", "ideas") == [topic[i] for i in moved]
    assert topic_ids(realm.member, "talk", "plans") == [
        topic[i] for i in range(4) if i not in moved]
    message = fetch(realm.member, topic[moved[0]])
    assert message["subject"] == "ideas"
    [entry] = message["edit_history"]
    assert entry["prev_topic"] == "plans" and entry["topic"] == "ideas"
    assert entry["user_id"] == realm.member.user_id
    assert message["last_moved_timestamp"] == entry["timestamp"]
    assert "last_edit_timestamp" not in message and "prev_content" not in entry


def test_moves_send_notifications_from_the_notification_bot(realm, topic):
    assert move(realm.member, topic[0], topic="ideas", propagate_mode="change_all",
                send_notification_to_old_thread=True).ok
    [new] = notification_texts(realm.member, "talk", "ideas")
    [old] = notification_texts(realm.member, "talk", "plans")
    who = f"@_**Max Member|{realm.member.user_id}**"
    assert new == f"This topic was moved here from #**talk>plans** by {who}."
    assert old == f"This topic was moved to #**talk>ideas** by {who}."
    # a partial move counts its messages (here also the first notification, which came
    # later in the topic); the old thread is not told by default
    assert move(realm.member, topic[2], topic="later", propagate_mode="change_later").ok
    assert notification_texts(realm.member, "talk", "later") == [
        new, f"3 messages were moved here from #**talk>ideas** by {who}."]
    assert notification_texts(realm.member, "talk", "ideas") == []


def test_resolving_and_unresolving(realm, topic):
    resolved = "✔ plans"
    assert move(realm.member, topic[0], topic=resolved, propagate_mode="change_all").ok
    # the topic's messages, then the notification bot's notice
    assert topic_ids(realm.member, "talk", resolved)[:-1] == topic
    message = fetch(realm.member, topic[0])
    assert "last_moved_timestamp" not in message
    assert message["edit_history"][0]["topic"] == resolved
    assert notification_texts(realm.member, "talk", resolved) == [
        f"@_**Max Member|{realm.member.user_id}** has marked this topic as resolved."]
    assert move(realm.member, topic[0], topic="plans", propagate_mode="change_all").ok
    assert topic_ids(realm.member, "talk", "plans")[:len(topic)] == topic
    # resolving has its own permission, and no time limit
    make_old(realm.realm_id, topic, 30 * DAY)
    assert move(realm.member, topic[0], topic=resolved, propagate_mode="change_all").ok
    assert realm.owner.patch("/realm", {"can_resolve_topics_group": {"new": ADMINS}}).ok
    denied = move(realm.member, topic[0], topic="plans", propagate_mode="change_all")
    assert denied.status == 400 and denied.json["msg"] == \
        "You are not allowed to edit this message"


def test_the_empty_topic_cannot_be_resolved_and_display_name_means_empty(realm, topic):
    assert move(realm.member, topic[0], topic="general chat", propagate_mode="change_all",
                send_notification_to_new_thread=False).ok
    assert fetch(realm.member, topic[0])["subject"] == ""
    refused = move(realm.member, topic[0], topic="✔ ", propagate_mode="change_all")
    assert refused.status == 400 and "cannot be marked as resolved" in refused.json["msg"]


def test_move_permissions_and_time_limits(realm, topic):
    assert realm.owner.patch("/realm", {
        "can_move_messages_between_topics_group": {"new": MODERATORS}}).ok
    denied = move(realm.member, topic[0], topic="x")
    assert denied.json["msg"] == "You are not allowed to edit this message"
    assert realm.owner.patch("/realm", {
        "can_move_messages_between_topics_group": {"new": system_group_id("role:everyone")},
        "move_messages_within_stream_limit_seconds": 3600}).ok
    make_old(realm.realm_id, [topic[0]], 2 * 3600)
    late = move(realm.member, topic[0], topic="x")
    assert late.status == 400 and late.json["msg"] == \
        "This message is too old for you to change its topic"
    # moderators and administrators are not bound by the move limits
    assert move(realm.moderator, topic[0], topic="x").ok


def test_change_all_beyond_the_time_limit_reports_what_may_move(realm, topic):
    assert realm.owner.patch("/realm", {"move_messages_within_stream_limit_seconds": 3600}).ok
    make_old(realm.realm_id, topic[:2], 2 * 3600)
    refused = move(realm.member, topic[3], topic="newer", propagate_mode="change_all")
    assert refused.status == 400
    body = refused.json
    assert body["code"] == "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED"
    assert (body["first_message_id_allowed_to_move"], body["total_messages_allowed_to_move"],
            body["total_messages_in_topic"]) == (topic[2], 2, 4)
    assert body["msg"] == "You may move only the latest 2 of this topic's 4 messages."
    assert topic_ids(realm.member, "talk", "plans") == topic   # nothing moved
    # the client's retry from the first allowed message with change_later works
    assert move(realm.member, body["first_message_id_allowed_to_move"], topic="newer",
                propagate_mode="change_later", send_notification_to_new_thread=False).ok
    assert topic_ids(realm.member, "talk", "newer") == topic[2:]
    # when nothing may move, the first allowed id is null
    make_old(realm.realm_id, topic[2:], 2 * 3600)
    none_allowed = move(realm.member, topic[2], topic="x", propagate_mode="change_all").json
    assert none_allowed["first_message_id_allowed_to_move"] is None
    assert none_allowed["total_messages_allowed_to_move"] == 0


def test_moving_between_channels(realm, topic, register_queue, fetch_events, drain_events):
    other = channel(realm.owner, "elsewhere", [realm.owner, realm.member, realm.admin])
    admin_queue = register_queue(realm.admin, event_types=["update_message"])["queue_id"]
    member_queue = register_queue(realm.member, event_types=["update_message"])["queue_id"]
    response = move(realm.member, topic[0], stream_id=other, propagate_mode="change_all",
                    send_notification_to_new_thread=False)
    assert response.ok, response.json
    assert topic_ids(realm.member, "elsewhere", "plans") == topic
    message = fetch(realm.member, topic[0])
    assert message["stream_id"] == other and message["display_recipient"] == "elsewhere"
    entry = message["edit_history"][0]
    assert (entry["prev_stream"], entry["stream"]) == (topic_stream(realm), other)
    assert "prev_topic" not in entry
    drain_events()
    # THEN subscribers of either channel hear of it, once
    for account, queue_id in ((realm.admin, admin_queue), (realm.member, member_queue)):
        [event] = fetch_events(account, queue_id)
        assert event["type"] == "update_message" and event["new_stream_id"] == other
        assert event["message_ids"] == topic and event["orig_subject"] == "plans"
        assert event["propagate_mode"] == "change_all" and "subject" not in event
    # the permission to move between channels is its own setting
    assert realm.owner.patch("/realm", {
        "can_move_messages_between_channels_group": {"new": ADMINS}}).ok
    denied = move(realm.member, topic[0], stream_id=topic_stream(realm))
    assert denied.json["msg"] == "You are not allowed to move this message"
    # AND a channel's can_move_messages_out_of_channel_group grants moves out of it only
    assert realm.owner.patch(f"/streams/{other}", {"can_move_messages_out_of_channel_group": {
        "new": {"direct_members": [realm.member.user_id], "direct_subgroups": []}}}).ok
    assert move(realm.member, topic[0], stream_id=topic_stream(realm),
                send_notification_to_new_thread=False).ok
    denied = move(realm.member, topic[0], stream_id=other)
    assert denied.json["msg"] == "You are not allowed to move this message"


def topic_stream(realm) -> int:
    return realm.owner.get("/get_stream_id", {"stream": "talk"}).json["stream_id"]


def test_request_shape_errors(realm, topic):
    # Every refusal is a BAD_REQUEST (§7) that changes nothing.
    other = channel(realm.owner, "elsewhere", [realm.member])
    secret = channel(realm.owner, "secret", [realm.owner], invite_only=True)
    cases = [
        ({"content": "x", "stream_id": other}, "content and channel cannot be changed in one request"),
        ({"content": "x", "propagate_mode": "change_all"}, "propagate_mode needs a topic or channel change"),
        ({"content": "x", "propagate_mode": "change_later"},
         "propagate_mode needs a topic or channel change"),
        ({"propagate_mode": "sometimes", "topic": "x"}, "propagate_mode"),
        ({"stream_id": "general", "topic": "x"}, "stream_id"),
        ({"topic": "x", "send_notification_to_old_thread": "maybe"},
         "send_notification_to_old_thread"),
        ({"topic": "x", "send_notification_to_new_thread": "sure"},
         "send_notification_to_new_thread"),
        ({}, "The request changes nothing"),
        ({"topic": "plans"}, "The request changes nothing"),
        ({"topic": "  plans "}, "The request changes nothing"),
        ({"topic": "x" * 61}, "Topic too long"),
        ({"topic": "bad\x07topic"}, "Invalid character in topic"),
        ({"content": "x" * 10001}, "Message too long"),
        ({"content": " "}, "A message needs some content"),
        ({"stream_id": 99999}, "No channel you can see has that ID."),
        ({"stream_id": secret}, "No channel you can see has that ID."),
    ]
    for params, message in cases:
        response = move(realm.member, topic[0], **params)
        assert response.status == 400 and message in response.json["msg"], (params, response.json)
        assert response.json["code"] == "BAD_REQUEST", params
    assert topic_ids(realm.member, "talk", "plans") == topic
    assert fetch(realm.member, topic[0])["content"] == "<p>m0</p>"
    dm = realm.member.post("/messages", {"type": "direct", "to": [realm.owner.user_id],
                                         "content": "hi"}).json["id"]
    for params, message in (({"topic": "x"}, "has no topic to change"),
                            ({"topic": ""}, "has no topic to change"),
                            ({"stream_id": other}, "cannot be moved into a channel"),
                            ({"content": "x", "topic": "x"}, "has no topic to change")):
        response = move(realm.member, dm, **params)
        assert response.status == 400 and response.json["code"] == "BAD_REQUEST"
        assert message in response.json["msg"], params
    # a message that does not exist, or that the caller cannot read
    for account, message_id in ((realm.member, 10**9), (realm.guest, topic[0])):
        response = move(account, message_id, topic="x")
        assert response.status == 400 and response.json["msg"] == "Message not found, or you cannot see it."
        assert response.json["code"] == "BAD_REQUEST"


def test_limits_are_inclusive(realm, topic):
    # max_topic_length and max_message_length are the largest accepted values
    assert move(realm.member, topic[0], topic="t" * 60,
                send_notification_to_new_thread=False).ok
    assert fetch(realm.member, topic[0])["subject"] == "t" * 60
    assert move(realm.member, topic[0], content="c" * 10000).ok


def test_subject_is_an_alias_of_topic(realm, topic):
    assert move(realm.member, topic[0], subject="ideas",
                send_notification_to_new_thread=False).ok
    assert fetch(realm.member, topic[0])["subject"] == "ideas"


def set_topics_policy(realm, stream_id: int, policy: str) -> None:
    """Test setup only: the channel's own topics policy."""
    Stream(realm.realm_id, stream_id).update(actions=[Stream.topics_policy.set(policy)])


def test_topics_policy_of_the_destination(realm, topic):
    # GIVEN an organization that requires topics
    assert realm.owner.patch("/realm", {"topics_policy": "disable_empty_topic"}).ok
    # THEN no spelling of the empty topic is accepted
    for empty in ("", "(no topic)", "general chat", "  "):
        refused = move(realm.member, topic[0], topic=empty)
        assert refused.status == 400 and refused.json["msg"] == \
            "This organization requires a topic on every channel message.", empty
    # AND a channel may allow the empty topic itself
    talk = topic_stream(realm)
    set_topics_policy(realm, talk, "allow_empty_topic")
    assert move(realm.member, topic[0], topic="general chat",
                send_notification_to_new_thread=False).ok
    assert fetch(realm.member, topic[0])["subject"] == ""
    # AND a channel that requires topics refuses messages moved in with the empty topic
    strict = channel(realm.owner, "strict", [realm.owner, realm.member])
    set_topics_policy(realm, strict, "disable_empty_topic")
    refused = move(realm.member, topic[0], stream_id=strict)
    assert refused.json["msg"] == "Topics are required in this channel."
    # AND a channel of the empty topic only refuses any other topic
    set_topics_policy(realm, talk, "empty_topic_only")
    refused = move(realm.member, topic[0], topic="named")
    assert refused.status == 400 and "topic is allowed in this channel" in refused.json["msg"]


def test_protected_history_moves_only_what_the_mover_can_see(realm):
    # GIVEN a private channel without shared history, where the member joined late
    secret = channel(realm.owner, "secret", [realm.owner], invite_only=True,
                     history_public_to_subscribers=False)
    early = [send(realm.owner, "secret", "plans", f"e{n}") for n in range(3)]
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "secret"}], "principals": [realm.member.user_id]}).ok
    late = [send(realm.owner, "secret", "plans", f"l{n}") for n in range(2)]
    assert realm.owner.patch("/realm", {"move_messages_within_stream_limit_seconds": 3600}).ok
    # WHEN the member moves the whole topic
    response = move(realm.member, late[0], topic="moved", propagate_mode="change_all",
                    send_notification_to_new_thread=False)
    # THEN only the messages the member can see move, without a time-limit error
    assert response.ok, response.json
    assert topic_ids(realm.owner, "secret", "moved") == late
    assert topic_ids(realm.owner, "secret", "plans") == early
    # AND the limit error counts only those messages
    make_old(realm.realm_id, late[:1], 2 * 3600)
    refused = move(realm.member, late[1], topic="again", propagate_mode="change_all").json
    assert (refused["total_messages_in_topic"], refused["total_messages_allowed_to_move"]) \
        == (2, 1)
    assert secret


def test_moderators_and_administrators_move_past_the_limits(realm, topic):
    # GIVEN both move limits at an hour and a topic older than that
    other = channel(realm.owner, "elsewhere", [realm.owner, realm.member, realm.moderator,
                                              realm.admin])
    assert realm.owner.patch("/realm", {"move_messages_within_stream_limit_seconds": 3600,
                                        "move_messages_between_streams_limit_seconds": 3600,
                                        }).ok
    make_old(realm.realm_id, topic, 2 * 3600)
    # THEN a member may move neither one message nor the topic, to a topic or a channel
    late = move(realm.member, topic[0], stream_id=other)
    assert late.json["msg"] == "The time limit for moving this message to another channel " \
                               "has passed"
    refused = move(realm.member, topic[0], stream_id=other, propagate_mode="change_all").json
    assert refused["code"] == "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED"
    assert (refused["first_message_id_allowed_to_move"],
            refused["total_messages_allowed_to_move"],
            refused["total_messages_in_topic"]) == (None, 0, 4)
    # AND a moderator moves the whole topic, and an administrator moves it on
    assert move(realm.moderator, topic[0], topic="renamed", propagate_mode="change_all",
                send_notification_to_new_thread=False).ok
    assert move(realm.admin, topic[0], stream_id=other, propagate_mode="change_all",
                send_notification_to_new_thread=False).ok
    assert topic_ids(realm.member, "elsewhere", "renamed") == topic


def test_the_stricter_limit_applies_to_a_move_of_topic_and_channel(realm, topic):
    other = channel(realm.owner, "elsewhere", [realm.owner, realm.member])
    assert realm.owner.patch("/realm", {"move_messages_within_stream_limit_seconds": 7200,
                                        "move_messages_between_streams_limit_seconds": 600,
                                        }).ok
    make_old(realm.realm_id, topic[:3], 3600)
    refused = move(realm.member, topic[3], topic="x", stream_id=other,
                   propagate_mode="change_all").json
    assert (refused["first_message_id_allowed_to_move"],
            refused["total_messages_allowed_to_move"]) == (topic[3], 1)
    # within the channel only the longer limit applies, so everything may move
    assert move(realm.member, topic[3], topic="x", propagate_mode="change_all",
                send_notification_to_new_thread=False).ok


def test_resolving_posts_its_notice_and_needs_only_its_own_permission(realm, topic):
    # GIVEN a member who may not move topics but may resolve them
    assert realm.owner.patch("/realm", {
        "can_move_messages_between_topics_group": {"new": MODERATORS}}).ok
    assert move(realm.member, topic[0], topic="elsewhere").json["msg"] == \
        "You are not allowed to edit this message"
    # WHEN resolving, even asking for both notices
    assert move(realm.member, topic[0], topic="✔ plans", propagate_mode="change_all",
                send_notification_to_old_thread=True,
                send_notification_to_new_thread=True).ok
    # THEN no move notices but the reference's resolve notice, from the notification
    # bot; no last_moved_timestamp, and the history has it
    who = f"@_**{realm.member.full_name}|{realm.member.user_id}**"
    assert notification_texts(realm.member, "talk", "✔ plans") == [
        f"{who} has marked this topic as resolved."]
    assert notification_texts(realm.member, "talk", "plans") == []
    # AND unresolving posts its own notice in the topic
    assert move(realm.member, topic[0], topic="plans", propagate_mode="change_all").ok
    assert notification_texts(realm.member, "talk", "plans") == [
        f"{who} has marked this topic as resolved.", f"{who} has marked this topic as unresolved."]
    assert move(realm.member, topic[0], topic="✔ plans", propagate_mode="change_all").ok
    message = fetch(realm.member, topic[2])
    assert "last_moved_timestamp" not in message
    assert (message["edit_history"][0]["prev_topic"], message["edit_history"][0]["topic"]) \
        == ("plans", "✔ plans")
    # AND resolving together with a channel change is a move like any other
    other = channel(realm.owner, "elsewhere", [realm.owner, realm.member])
    assert move(realm.owner, topic[0], topic="plans", stream_id=other,
                propagate_mode="change_all").ok
    assert fetch(realm.member, topic[0])["last_moved_timestamp"]
    moved = [t for t in notification_texts(realm.member, "elsewhere", "plans")
             if "moved here" in t or ("marked this topic" in t and "Olivia" in t)]
    assert len(moved) == 1 and "moved here" in moved[0]


def test_a_move_of_topic_and_channel_records_every_history_field(realm, topic):
    other = channel(realm.owner, "elsewhere", [realm.owner, realm.member])
    assert move(realm.member, topic[0], topic="ideas", stream_id=other,
                send_notification_to_new_thread=False).ok
    [entry] = fetch(realm.member, topic[0])["edit_history"]
    assert set(entry) == {"user_id", "timestamp", "prev_stream", "stream", "prev_topic",
                          "topic"}
    assert (entry["prev_stream"], entry["stream"], entry["prev_topic"], entry["topic"]) == (
        topic_stream(realm), other, "plans", "ideas")


def test_no_moves_into_an_archived_channel(realm, topic):
    other = channel(realm.owner, "elsewhere", [realm.owner, realm.member])
    Stream(realm.realm_id, other).update(actions=[Stream.is_archived.set(True)])
    refused = move(realm.member, topic[0], stream_id=other)
    assert refused.status == 400 and "archived" in refused.json["msg"]


def test_protected_history_edits_reach_only_readers(realm, register_queue, fetch_events,
                                                   drain_events):
    # GIVEN a private channel without shared history; the member joins after a message
    channel(realm.owner, "secret", [realm.owner], invite_only=True,
            history_public_to_subscribers=False)
    early = send(realm.owner, "secret", "plans", "before you came")
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "secret"}], "principals": [realm.member.user_id]}).ok
    later = send(realm.owner, "secret", "plans", "after")
    queues = {a.user_id: register_queue(a, event_types=["update_message"])["queue_id"]
              for a in (realm.owner, realm.member)}
    # WHEN the owner edits the early message, then moves the topic
    assert move(realm.owner, early, content="secret edit").ok
    assert move(realm.owner, later, topic="moved", propagate_mode="change_all",
                send_notification_to_new_thread=False).ok
    drain_events()
    # THEN the member hears only of the move (which includes a message they can read)
    owner_events = fetch_events(realm.owner, queues[realm.owner.user_id])
    member_events = fetch_events(realm.member, queues[realm.member.user_id])
    assert [e.get("content") for e in owner_events] == ["secret edit", None]
    assert len(member_events) == 1 and "content" not in member_events[0]
    assert member_events[0]["subject"] == "moved"


def test_moving_to_a_private_channel_tells_those_who_lose_access(realm, topic, register_queue,
                                                                fetch_events, drain_events):
    # GIVEN the member and moderator read 'talk'; only the member is in a private channel
    secret = channel(realm.owner, "secret", [realm.owner, realm.member], invite_only=True,
                     history_public_to_subscribers=True)
    bulk_queue = register_queue(realm.moderator, event_types=["update_message",
                                                              "delete_message"],
                                client_capabilities={"bulk_message_deletion": True})["queue_id"]
    old_queue = register_queue(realm.moderator,
                               event_types=["update_message", "delete_message"])["queue_id"]
    member_queue = register_queue(realm.member, event_types=["update_message",
                                                             "delete_message"])["queue_id"]
    # WHEN the topic moves into the private channel
    assert move(realm.member, topic[0], stream_id=secret, propagate_mode="change_all",
                send_notification_to_new_thread=False).ok
    drain_events()
    # THEN the member (who keeps access) gets the move
    [update] = fetch_events(realm.member, member_queue)
    assert update["type"] == "update_message" and update["new_stream_id"] == secret
    # AND the moderator (who loses access) is told to delete the messages instead
    [deleted] = fetch_events(realm.moderator, bulk_queue)
    assert deleted == {"type": "delete_message", "message_ids": topic,
                       "message_type": "stream", "stream_id": topic_stream(realm),
                       "topic": "plans", "id": deleted["id"]}
    legacy = fetch_events(realm.moderator, old_queue)
    assert [(e["type"], e["message_id"]) for e in legacy] == [
        ("delete_message", i) for i in topic]
    assert "message_ids" not in legacy[0]


def test_guests_lose_what_moves_to_a_public_channel_they_are_not_in(
        realm, topic, register_queue, fetch_events, drain_events):
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "talk"}], "principals": [realm.guest.user_id]}).ok
    public = channel(realm.owner, "public", [realm.owner])
    queues = {a.user_id: register_queue(a, event_types=["update_message", "delete_message"])
              ["queue_id"] for a in (realm.guest, realm.member)}
    assert move(realm.member, topic[0], stream_id=public, propagate_mode="change_all",
                send_notification_to_new_thread=False).ok
    drain_events()
    # the member, not subscribed to the destination, may still read a public channel
    assert [e["type"] for e in fetch_events(realm.member, queues[realm.member.user_id])] \
        == ["update_message"]
    assert {e["type"] for e in fetch_events(realm.guest, queues[realm.guest.user_id])} \
        == {"delete_message"}


def test_update_message_event_shapes(realm, register_queue, fetch_events, drain_events):
    channel(realm.owner, "talk", [realm.owner, realm.member])
    message = send(realm.member, "talk", "", "first")
    plain = register_queue(realm.owner, event_types=["update_message"])["queue_id"]
    capable = register_queue(realm.owner, event_types=["update_message"],
                             client_capabilities={"empty_topic_name": True})["queue_id"]
    assert move(realm.member, message, content="/me waves").ok
    assert move(realm.member, message, topic="named", propagate_mode="change_all",
                send_notification_to_new_thread=False).ok
    drain_events()
    edit, moved = fetch_events(realm.owner, plain)
    common = {"type", "id", "user_id", "edit_timestamp", "rendering_only", "message_id",
              "message_ids", "flags", "stream_id", "stream_name"}
    assert set(edit) == common | {"orig_content", "orig_rendered_content", "content",
                                  "rendered_content", "is_me_message"}
    assert edit["is_me_message"] is True and edit["rendering_only"] is False
    assert set(moved) == common | {"propagate_mode", "orig_subject", "subject", "topic_links"}
    assert (moved["orig_subject"], moved["subject"], moved["topic_links"]) == (
        "general chat", "named", [])   # the empty topic by its display name
    _, moved_for_capable = fetch_events(realm.owner, capable)
    assert moved_for_capable["orig_subject"] == ""


def test_messages_without_a_topic_follow_the_same_move_rules(realm):
    # As the reference since feature level 172: no exception for the empty topic.
    channel(realm.owner, "talk", [realm.owner, realm.member])
    untitled = send(realm.member, "talk", "", "no topic yet")
    assert realm.owner.patch("/realm", {
        "can_move_messages_between_topics_group": {"new": MODERATORS}}).ok
    assert move(realm.member, untitled, topic="titled").json["msg"] == \
        "You are not allowed to edit this message"
    assert realm.owner.patch("/realm", {
        "can_move_messages_between_topics_group": {"new": system_group_id("role:everyone")},
        "move_messages_within_stream_limit_seconds": 3600}).ok
    make_old(realm.realm_id, [untitled], 2 * 3600)
    assert move(realm.member, untitled, topic="titled").json["msg"] == \
        "This message is too old for you to change its topic"
