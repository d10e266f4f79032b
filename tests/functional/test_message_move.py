"""PATCH /messages/{id}: moving messages between topics and channels, resolving topics."""
from __future__ import annotations

import pytest

from chalicelib.actions import message_move
from chalicelib.actions.realms import system_group_id
from chalicelib.models.events import Outbox
from chalicelib.models.message_moves import MessageMove
from chalicelib.models.messages import Message
from tests.functional.edit_helpers import (bulk_messages, channel, fetch, make_old, send,
                                           topic_ids)

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
    assert topic_ids(realm.member, "talk", resolved) == topic
    message = fetch(realm.member, topic[0])
    assert "last_moved_timestamp" not in message
    assert message["edit_history"][0]["topic"] == resolved
    assert notification_texts(realm.member, "talk", resolved) == []   # none for resolving
    assert move(realm.member, topic[0], topic="plans", propagate_mode="change_all").ok
    assert topic_ids(realm.member, "talk", "plans") == topic
    # resolving has its own permission, and no time limit
    make_old(realm.realm_id, topic, 30 * DAY)
    assert move(realm.member, topic[0], topic=resolved, propagate_mode="change_all").ok
    assert realm.owner.patch("/realm", {"can_resolve_topics_group": {"new": ADMINS}}).ok
    denied = move(realm.member, topic[0], topic="plans", propagate_mode="change_all")
    assert denied.status == 400 and denied.json["msg"] == \
        "You don't have permission to edit this message"


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
    assert denied.json["msg"] == "You don't have permission to edit this message"
    assert realm.owner.patch("/realm", {
        "can_move_messages_between_topics_group": {"new": system_group_id("role:everyone")},
        "move_messages_within_stream_limit_seconds": 3600}).ok
    make_old(realm.realm_id, [topic[0]], 2 * 3600)
    late = move(realm.member, topic[0], topic="x")
    assert late.status == 400 and late.json["msg"] == \
        "The time limit for editing this message's topic has passed"
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
    assert body["msg"] == "You only have permission to move the 2/4 most recent messages " \
                          "in this topic."
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
    assert denied.json["msg"] == "You don't have permission to move this message"


def topic_stream(realm) -> int:
    return realm.owner.get("/get_stream_id", {"stream": "talk"}).json["stream_id"]


def test_request_shape_errors(realm, topic):
    other = channel(realm.owner, "elsewhere", [realm.member])
    cases = [
        ({"content": "x", "stream_id": other}, "Cannot change message content while changing"),
        ({"content": "x", "propagate_mode": "change_all"}, "Invalid propagate_mode"),
        ({"propagate_mode": "sometimes", "topic": "x"}, "propagate_mode"),
        ({}, "Nothing to change"),
        ({"topic": "plans"}, "Nothing to change"),
        ({"topic": "x" * 61}, "Topic too long"),
        ({"stream_id": 99999}, "Invalid channel ID"),
    ]
    for params, message in cases:
        response = move(realm.member, topic[0], **params)
        assert response.status == 400 and message in response.json["msg"], (params, response.json)
    dm = realm.member.post("/messages", {"type": "direct", "to": [realm.owner.user_id],
                                         "content": "hi"}).json["id"]
    assert "cannot have topics" in move(realm.member, dm, topic="x").json["msg"]
    assert "cannot be moved to channels" in move(realm.member, dm, stream_id=other).json["msg"]
    assert move(realm.member, 10**9, topic="x").json["msg"] == "Invalid message(s)"
    assert move(realm.guest, topic[0], topic="x").json["msg"] == "Invalid message(s)"


def test_topics_policy_of_the_destination(realm, topic):
    assert realm.owner.patch("/realm", {"topics_policy": "disable_empty_topic"}).ok
    refused = move(realm.member, topic[0], topic="")
    assert refused.status == 400 and "Topics are required" in refused.json["msg"]
    refused = move(realm.member, topic[0], topic="(no topic)")
    assert "Topics are required" in refused.json["msg"]


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


def test_bulk_move_of_a_large_topic_in_batches(realm, monkeypatch):
    # GIVEN a topic of 1,000 messages
    stream_id = channel(realm.owner, "big", [realm.owner, realm.member])
    ids = bulk_messages(realm.realm_id, realm.member.user_id, stream_id, "old", 1000)
    # WHEN the first request crashes after three batches
    real_write = message_move._EditWriter.write_batch
    calls = {"n": 0}

    def crashing(self, batch, **kwargs):
        calls["n"] += 1
        if calls["n"] == 4:
            raise RuntimeError("Lambda timed out")
        return real_write(self, batch, **kwargs)

    monkeypatch.setattr(message_move._EditWriter, "write_batch", crashing)
    with pytest.raises(RuntimeError):
        from chalicelib.actions.message_edit import EditRequest, do_update_message
        from chalicelib.http.auth import Principal
        do_update_message(Principal(realm.realm_id, realm.member.user_id, realm.member.email,
                                    400, False),
                          EditRequest(ids[0], topic="new", propagate_mode="change_all"))
    record = MessageMove.get(realm.realm_id, ids[0])
    assert record.status == "moving"
    assert len(topic_ids(realm.member, "big", "new")) == 3 * message_move.MESSAGES_PER_BATCH
    # AND the client retries the same request
    monkeypatch.setattr(message_move._EditWriter, "write_batch", real_write)
    response = move(realm.member, ids[0], topic="new", propagate_mode="change_all")
    assert response.ok, response.json
    # THEN every message moved exactly once, each with one history entry of the same edit
    *moved, notification = topic_ids(realm.member, "big", "new")
    assert moved == ids
    assert fetch(realm.member, notification)["sender_full_name"] == "Notification Bot"
    assert topic_ids(realm.member, "big", "old") == []
    stored = list(Message.batch_get([(realm.realm_id, i) for i in ids]))
    assert {len(m.edit_history) for m in stored} == {1}
    assert {m.edit_history[0]["timestamp"] for m in stored} == {record.edit_timestamp}
    assert MessageMove.get(realm.realm_id, ids[0]).status == "done"
    # AND the events went out per batch, not per message (plus one notification)
    batches = -(-1000 // message_move.MESSAGES_PER_BATCH)
    assert outbox_types(realm.realm_id) == {"update_message": batches, "message": 1}
    # AND a third identical request is a quiet success that changes nothing
    assert move(realm.member, ids[0], topic="new", propagate_mode="change_all").ok
    assert outbox_types(realm.realm_id) == {"update_message": batches, "message": 1}


def outbox_types(realm_id: int) -> dict[str, int]:
    """Event records of the realm by type (a test-only Scan), leaving out user creation."""
    counts: dict[str, int] = {}
    for item in Outbox.scan(Outbox.realm_id == realm_id):
        kind = item.event["type"]
        if kind in ("update_message", "message"):
            counts[kind] = counts.get(kind, 0) + 1
    return counts
