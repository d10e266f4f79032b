"""unread_msgs, starred_messages and recent_private_conversations in POST /register, and
how sends, edits, moves, muting, unsubscribing and deactivation keep them right."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import (
    dm,
    flag_events,
    flags_of,
    register_state,
    set_flags,
    unread,
    unread_ids,
)


def test_unread_msgs_has_the_reference_shape(realm, drain_events):
    # GIVEN a channel message, a one-to-one DM and a group DM to the member
    stream_id = channel(realm.owner, "shape", [realm.owner, realm.member])
    in_channel = send(realm.owner, "shape", "Lunch", "food?")
    empty_topic = send(realm.owner, "shape", "", "no topic")
    direct = dm(realm.owner, [realm.member], "psst")
    group = dm(realm.owner, [realm.member, realm.admin], "all three")
    own = send(realm.member, "shape", "Lunch", "mine")
    drain_events()
    # WHEN the member registers
    state = unread(realm.member)
    # THEN each conversation lists its unread messages; the member's own message is read
    assert state == {
        "count": 4,
        "pms": [{"other_user_id": realm.owner.user_id, "sender_id": realm.owner.user_id,
                 "unread_message_ids": [direct]}],
        "streams": sorted([{"stream_id": stream_id, "topic": "Lunch",
                            "unread_message_ids": [in_channel]},
                           {"stream_id": stream_id, "topic": "general chat",
                            "unread_message_ids": [empty_topic]}],
                          key=lambda s: s["topic"].lower()),
        "huddles": [{"user_ids_string": ",".join(str(u) for u in sorted(
            [realm.owner.user_id, realm.member.user_id, realm.admin.user_id])),
                     "unread_message_ids": [group]}],
        "mentions": [],
        "old_unreads_missing": False,
    }
    assert own not in unread_ids(realm.member)
    # AND clients that know the empty topic get it as ""
    topics = {s["topic"] for s in unread(realm.member, client_capabilities={
        "empty_topic_name": True})["streams"]}
    assert topics == {"Lunch", ""}


def test_mentions_and_muting(realm, drain_events):
    # GIVEN messages mentioning the member directly and by wildcard, in muted places
    stream_id = channel(realm.owner, "talk", [realm.owner, realm.member])
    muted_id = channel(realm.owner, "noise", [realm.owner, realm.member])
    assert realm.member.post("/users/me/subscriptions/properties", {"subscription_data": [
        {"stream_id": muted_id, "property": "is_muted", "value": True}]}).ok
    assert realm.member.post("/user_topics", {"stream_id": stream_id, "topic": "boring",
                                              "visibility_policy": 1}).ok
    direct = send(realm.owner, "talk", "news", "hey @**Max Member**")
    wildcard = send(realm.owner, "talk", "news", "hey @**all**")
    muted_topic_wildcard = send(realm.owner, "talk", "boring", "hey @**all**")
    muted_channel = send(realm.owner, "noise", "x", "chatter")
    muted_direct = send(realm.owner, "noise", "x", "but @**Max Member**")
    drain_events()
    state = unread(realm.member)
    # THEN muted messages are listed but not counted, and only unmuted wildcards mention
    assert state["count"] == 2
    assert state["mentions"] == sorted([direct, wildcard, muted_direct])
    listed = {i for s in state["streams"] for i in s["unread_message_ids"]}
    assert {muted_topic_wildcard, muted_channel, muted_direct} <= listed


def test_reading_and_starring_show_in_the_state(realm, drain_events):
    channel(realm.owner, "star", [realm.owner, realm.member])
    first, second = send(realm.owner, "star", "t", "a"), send(realm.owner, "star", "t", "b")
    drain_events()
    assert set_flags(realm.member, [first], "add", "read").ok
    assert set_flags(realm.member, [second, first], "add", "starred").ok
    state = register_state(realm.member, "message", "update_message_flags", "starred_messages")
    assert [s["unread_message_ids"] for s in state["unread_msgs"]["streams"]] == [[second]]
    assert state["starred_messages"] == [first, second]


def test_edits_that_add_or_remove_a_mention(realm, drain_events):
    channel(realm.owner, "edits", [realm.owner, realm.member])
    message = send(realm.owner, "edits", "t", "plain")
    drain_events()
    assert unread(realm.member)["mentions"] == []
    # WHEN the sender edits a mention of the member in
    assert realm.owner.patch(f"/messages/{message}", {"content": "now @**Max Member**"}).ok
    drain_events()
    # THEN it is an unread mention and the message is flagged
    assert unread(realm.member)["mentions"] == [message]
    assert "mentioned" in flags_of(realm.member, message)
    # WHEN the mention is edited out THEN both go
    assert realm.owner.patch(f"/messages/{message}", {"content": "plain again"}).ok
    drain_events()
    assert unread(realm.member)["mentions"] == []
    assert "mentioned" not in flags_of(realm.member, message)


def test_topic_moves_carry_unread_messages_along(realm, drain_events):
    stream_id = channel(realm.owner, "moves", [realm.owner, realm.member])
    ids = [send(realm.owner, "moves", "old", f"m{n}") for n in range(3)]
    drain_events()
    assert realm.owner.patch(f"/messages/{ids[1]}", {
        "topic": "new", "propagate_mode": "change_later",
        "send_notification_to_new_thread": False}).ok
    drain_events()
    streams = {s["topic"]: s["unread_message_ids"] for s in unread(realm.member)["streams"]}
    assert streams == {"old": [ids[0]], "new": [ids[1], ids[2]]}
    # AND the moved messages can be marked read by their new topic
    assert realm.member.post("/mark_topic_as_read", {"stream_id": stream_id,
                                                     "topic_name": "new"}).ok
    assert unread_ids(realm.member) == [ids[0]]


def test_moving_to_a_channel_the_user_is_not_in_marks_it_read(realm, register_queue,
                                                              fetch_events, drain_events):
    # GIVEN unread messages of the member and admin, and a channel only the admin is in
    channel(realm.owner, "from", [realm.owner, realm.member, realm.admin])
    to_id = channel(realm.owner, "to", [realm.owner, realm.admin])
    ids = [send(realm.owner, "from", "t", f"m{n}") for n in range(2)]
    drain_events()
    queue_id = register_queue(realm.member, event_types=["update_message_flags"])["queue_id"]
    # WHEN the topic moves there
    assert realm.owner.patch(f"/messages/{ids[0]}", {
        "stream_id": to_id, "propagate_mode": "change_all",
        "send_notification_to_old_thread": False,
        "send_notification_to_new_thread": False}).ok
    drain_events()
    # THEN the member's copies are marked read (with an event), the admin's moved along
    assert unread_ids(realm.member) == []
    [event] = flag_events(fetch_events(realm.member, queue_id))
    assert (event["op"], event["flag"], event["messages"]) == ("add", "read", ids)
    admin = unread(realm.admin)["streams"]
    assert [(s["stream_id"], s["unread_message_ids"]) for s in admin] == [(to_id, ids)]


def test_unsubscribing_marks_the_channel_read(realm, register_queue, fetch_events,
                                              drain_events):
    channel(realm.owner, "leaving", [realm.owner, realm.member])
    channel(realm.owner, "staying", [realm.owner, realm.member])
    left = send(realm.owner, "leaving", "t")
    kept = send(realm.owner, "staying", "t")
    drain_events()
    queue_id = register_queue(realm.member, event_types=["update_message_flags",
                                                          "subscription"])["queue_id"]
    response = realm.member.delete("/users/me/subscriptions", {"subscriptions": ["leaving"]})
    assert response.ok, response.json
    assert response.json["removed"] == ["leaving"] and response.json["not_removed"] == []
    # THEN at once the state leaves the channel out, and the fan-out marks it read
    assert unread_ids(realm.member) == [kept]
    drain_events()
    events = fetch_events(realm.member, queue_id)
    assert next(e["op"] for e in events if e["type"] == "subscription") == "remove"
    [flags] = flag_events(events)
    assert flags["messages"] == [left]
    assert "read" in flags_of(realm.member, left)


def test_deactivation_and_reactivation_keep_the_state(realm, drain_events):
    channel(realm.owner, "pause", [realm.owner, realm.member])
    message = send(realm.owner, "pause", "t")
    drain_events()
    assert realm.owner.delete(f"/users/{realm.member.user_id}").ok
    assert realm.owner.post(f"/users/{realm.member.user_id}/reactivate").ok
    drain_events()
    assert unread_ids(realm.member) == [message]


def test_recent_private_conversations(realm, drain_events):
    one = dm(realm.owner, [realm.member])
    group = dm(realm.member, [realm.owner, realm.admin])
    later = dm(realm.member, [realm.owner])
    to_self = dm(realm.member, [realm.member])
    drain_events()
    state = register_state(realm.member, "recent_private_conversations")
    assert state["recent_private_conversations"] == [
        {"max_message_id": to_self, "user_ids": []},
        {"max_message_id": later, "user_ids": [realm.owner.user_id]},
        {"max_message_id": group, "user_ids": sorted([realm.owner.user_id,
                                                      realm.admin.user_id])},
    ]
    assert one < later


def test_old_unreads_missing_when_past_the_cap(realm, drain_events, monkeypatch):
    from chalicelib.actions.read_state.reads import unread as unread_module

    channel(realm.owner, "many", [realm.owner, realm.member])
    ids = [send(realm.owner, "many", "t", f"m{n}") for n in range(3)]
    drain_events()
    monkeypatch.setattr(unread_module, "MAX_UNREAD_MESSAGES", 2)
    state = unread(realm.member)
    assert state["old_unreads_missing"] is True
    assert state["streams"][0]["unread_message_ids"] == ids[1:]   # the newest are kept


def test_deleted_messages_leave_the_read_state(realm, drain_events):
    # GIVEN unread and starred messages of the member: in a channel, in a DM, in a topic
    stream_id = channel(realm.owner, "gone", [realm.owner, realm.member])
    in_channel = send(realm.owner, "gone", "t", "delete me")
    direct = dm(realm.owner, [realm.member], "and me")
    topic = [send(realm.owner, "gone", "doomed", f"m{n}") for n in range(3)]
    kept = send(realm.owner, "gone", "t", "keep me")
    drain_events()
    assert set_flags(realm.member, [in_channel, direct, topic[0], kept], "add", "starred").ok
    # WHEN the messages and the topic are deleted
    for message_id in (in_channel, direct):
        assert realm.owner.delete(f"/messages/{message_id}").ok, message_id
    response = realm.owner.post(f"/streams/{stream_id}/delete_topic", {"topic_name": "doomed"})
    assert response.ok and response.json["complete"] is True
    drain_events()
    # THEN neither the unread state nor the stars mention them
    state = register_state(realm.member, "message", "update_message_flags", "starred_messages")
    assert [i for s in state["unread_msgs"]["streams"] for i in s["unread_message_ids"]] == [
        kept]
    assert state["unread_msgs"]["pms"] == []
    assert state["starred_messages"] == [kept]
