"""Read state is exact before the fan-out: a message is unread for its recipients from
the moment POST /messages answers, and a mark-read in that window is never undone.

Every test holds the stream consumer back (`drain_events.paused()`), does what a client
would do right after the send, then lets the fan-out run and checks the outcome again.
"""
from __future__ import annotations

import pytest

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import (
    dm,
    flag_events,
    flags_of,
    narrow_ids,
    set_flags,
    unread,
    unread_ids,
)


def _everywhere_unread(account, message_id: int) -> None:
    """Every reader agrees the message is unread for `account`."""
    assert "read" not in flags_of(account, message_id)
    newest = account.get("/messages", {"anchor": "newest", "num_before": 5,
                                       "num_after": 0, "narrow": []})
    assert newest.ok
    shown = {m["id"]: m["flags"] for m in newest.json["messages"]}
    assert "read" not in shown[message_id]
    assert message_id in narrow_ids(account, [{"operator": "is", "operand": "unread"}])
    assert message_id in unread_ids(account)


def _everywhere_read(account, message_id: int) -> None:
    assert "read" in flags_of(account, message_id)
    assert message_id not in narrow_ids(account, [{"operator": "is", "operand": "unread"}])
    assert message_id not in unread_ids(account)


def test_just_sent_message_is_unread_before_the_fanout(realm, drain_events):
    channel(realm.owner, "general", [realm.owner, realm.member, realm.admin])
    with drain_events.paused():
        # WHEN a channel message and a direct message are sent, nothing fanned out
        stream_id = send(realm.owner, "general", "lunch")
        direct = dm(realm.owner, [realm.member])
        drain_events()   # paused: does nothing
        # THEN recipients see both unread everywhere; the sender sees them read
        for message_id in (stream_id, direct):
            _everywhere_unread(realm.member, message_id)
            assert "read" in flags_of(realm.owner, message_id)
        _everywhere_unread(realm.admin, stream_id)
        # AND the channel's unread counts place it in its topic
        state = unread(realm.member)
        assert {"stream_id": state["streams"][0]["stream_id"], "topic": "lunch",
                "unread_message_ids": [stream_id]} in state["streams"]
        assert state["count"] == 2
    drain_events()
    # THEN once delivered, the markers say the same
    for message_id in (stream_id, direct):
        _everywhere_unread(realm.member, message_id)
        assert "read" in flags_of(realm.owner, message_id)


def test_mention_shows_before_the_fanout(realm, drain_events):
    channel(realm.owner, "general", [realm.owner, realm.member])
    with drain_events.paused():
        mentioned = send(realm.owner, "general", "t", content="@**Max Member** look")
        assert "mentioned" in flags_of(realm.member, mentioned)
        assert unread(realm.member)["mentions"] == [mentioned]
    drain_events()
    assert "mentioned" in flags_of(realm.member, mentioned)


def test_mark_read_by_ids_before_the_fanout_stays_read(realm, register_queue,
                                                       fetch_events, drain_events):
    channel(realm.owner, "general", [realm.owner, realm.member])
    queue_id = register_queue(realm.member, event_types=["update_message_flags"])["queue_id"]
    with drain_events.paused():
        first = send(realm.owner, "general", "t")
        second = send(realm.owner, "general", "t")
        # WHEN the member marks the first read before any marker exists
        response = set_flags(realm.member, [first], "add", "read")
        assert response.ok, response.json
        _everywhere_read(realm.member, first)
        _everywhere_unread(realm.member, second)
        # AND marking it read again changes nothing more
        assert set_flags(realm.member, [first], "add", "read").ok
    # WHEN the fan-out writes the markers THEN it does not bring the first back
    drain_events()
    _everywhere_read(realm.member, first)
    _everywhere_unread(realm.member, second)
    events = flag_events(fetch_events(realm.member, queue_id))
    assert [(e["op"], e["messages"]) for e in events] == [("add", [first])]


def test_mark_unread_again_before_the_fanout(realm, drain_events):
    channel(realm.owner, "general", [realm.owner, realm.member])
    with drain_events.paused():
        message_id = send(realm.owner, "general", "t")
        assert set_flags(realm.member, [message_id], "add", "read").ok
        assert set_flags(realm.member, [message_id], "remove", "read").ok
        _everywhere_unread(realm.member, message_id)
    drain_events()
    _everywhere_unread(realm.member, message_id)


def test_bulk_mark_read_before_the_fanout_covers_messages_in_flight(realm, drain_events):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member])
    other_id = channel(realm.owner, "other", [realm.owner, realm.member])
    with drain_events.paused():
        topic_a = send(realm.owner, "general", "a")
        topic_b = send(realm.owner, "general", "b")
        elsewhere = send(realm.owner, "other", "x")
        direct = dm(realm.owner, [realm.member])
        # WHEN the member marks topic "a" read THEN it covers the message in flight
        assert realm.member.post("/mark_topic_as_read", {"stream_id": stream_id,
                                                         "topic_name": "A"}).ok
        assert unread_ids(realm.member) == sorted([topic_b, elsewhere, direct])
        _everywhere_read(realm.member, topic_a)
        # WHEN the channel THEN its other topic too
        assert realm.member.post("/mark_stream_as_read", {"stream_id": stream_id}).ok
        assert unread_ids(realm.member) == sorted([elsewhere, direct])
    drain_events()
    assert unread_ids(realm.member) == sorted([elsewhere, direct])
    assert other_id
    with drain_events.paused():
        late = send(realm.owner, "other", "y")
        # WHEN everything is marked read with one message in flight THEN all of it
        response = realm.member.post("/mark_all_as_read")
        assert response.ok and response.json["complete"] is True
        assert unread_ids(realm.member) == []
    drain_events()
    assert unread_ids(realm.member) == []
    _everywhere_read(realm.member, late)


def test_mark_read_by_narrow_before_the_fanout(realm, drain_events):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member])
    with drain_events.paused():
        message_id = send(realm.owner, "general", "t")
        response = realm.member.post("/messages/flags/narrow", {
            "anchor": "newest", "num_before": 10, "num_after": 0, "op": "add",
            "flag": "read", "narrow": [{"operator": "channel", "operand": stream_id}]})
        assert response.ok, response.json
        assert response.json["updated_count"] == 1
        _everywhere_read(realm.member, message_id)
    drain_events()
    _everywhere_read(realm.member, message_id)


@pytest.mark.parametrize("reads", ["before the settling read", "after the settling read"])
def test_mark_read_while_the_fanout_writes_markers(realm, drain_events, monkeypatch, reads):
    """A mark-read that lands after the markers are written but before the message
    leaves flight: the fan-out's settling round finds it and deletes the marker. Read
    before the fan-out reads the pending items, the message is settled alone; read just
    after, the batch's conditional delete is refused and it is settled alone too."""
    from chalicelib.models.pending_deliveries import PendingDelivery

    channel(realm.owner, "general", [realm.owner, realm.member])
    with drain_events.paused():
        message_id = send(realm.owner, "general", "t")
    original = PendingDelivery.batch_get
    calls = {"n": 0}

    def read_around(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 1:
            return original(*args, **kwargs)
        if reads == "before the settling read":
            assert set_flags(realm.member, [message_id], "add", "read").ok
            return original(*args, **kwargs)
        found = list(original(*args, **kwargs))
        assert set_flags(realm.member, [message_id], "add", "read").ok
        return found

    monkeypatch.setattr(PendingDelivery, "batch_get", read_around)
    drain_events()
    monkeypatch.undo()
    assert calls["n"] >= 1
    _everywhere_read(realm.member, message_id)


def test_sender_read_flag_and_muted_sender_in_flight(realm, drain_events):
    channel(realm.owner, "general", [realm.owner, realm.member, realm.admin])
    assert realm.admin.post(f"/users/me/muted_users/{realm.owner.user_id}").ok
    with drain_events.paused():
        message_id = send(realm.owner, "general", "t")
        # THEN a recipient who muted the sender has it read; others unread
        _everywhere_read(realm.admin, message_id)
        _everywhere_unread(realm.member, message_id)
    drain_events()
    _everywhere_read(realm.admin, message_id)
    _everywhere_unread(realm.member, message_id)


def test_the_message_reaches_queues_while_its_markers_are_written(realm, drain_events,
                                                                   register_queue,
                                                                   monkeypatch):
    """Delivery does not wait for the recipients' state: the event is appended beside
    it, and the message reads unread meanwhile (its delivery is still pending)."""
    import threading
    import time

    from chalicelib.fanout.recipients import RecipientStep
    from chalicelib.realtime.reader import read_events

    channel(realm.owner, "general", [realm.owner, realm.member])
    queue_id = register_queue(realm.member, event_types=["message"])["queue_id"]
    writing, release = threading.Event(), threading.Event()
    original = RecipientStep.flush

    def slow_flush(self):
        writing.set()
        assert release.wait(20)
        return original(self)

    monkeypatch.setattr(RecipientStep, "flush", slow_flush)
    with drain_events.paused():
        message_id = send(realm.owner, "general", "t")
    fanout = threading.Thread(target=drain_events)
    fanout.start()
    try:
        assert writing.wait(20)
        # WHEN the recipients' state is still being written
        deadline = time.monotonic() + 20
        while not read_events(queue_id, -1) and time.monotonic() < deadline:
            time.sleep(0.05)
        # THEN the event is already in the queue, and the message reads unread
        assert [e["message"]["id"] for e in read_events(queue_id, -1)] == [message_id]
        _everywhere_unread(realm.member, message_id)
    finally:
        release.set()
        fanout.join(30)
    assert set_flags(realm.member, [message_id], "add", "read").ok
    _everywhere_read(realm.member, message_id)


def test_the_markers_are_written_while_the_audience_is_read(realm, drain_events,
                                                           register_queue, monkeypatch):
    """The recipients' state needs nothing of the queues: it starts before the second
    pass reads the audience's queues, not after the appends are ready."""
    import threading

    from chalicelib.fanout import audience
    from chalicelib.fanout.recipients import RecipientStep
    from chalicelib.realtime.reader import read_events

    channel(realm.owner, "general", [realm.owner, realm.member])
    queue_id = register_queue(realm.member, event_types=["message"])["queue_id"]
    writing = threading.Event()
    original_flush, original_lookup = RecipientStep.flush, audience.queues_of_users

    def flush(self):
        writing.set()
        return original_flush(self)

    def queues_of_users(*args, **kwargs):
        # WHEN the fan-out reads the audience's queues THEN the markers are on their way
        assert writing.wait(20), "the recipients' state waited for the queue reads"
        return original_lookup(*args, **kwargs)

    monkeypatch.setattr(RecipientStep, "flush", flush)
    monkeypatch.setattr(audience, "queues_of_users", queues_of_users)
    with drain_events.paused():
        message_id = send(realm.owner, "general", "t")
    drain_events()
    assert [e["message"]["id"] for e in read_events(queue_id, -1)] == [message_id]
    assert writing.is_set()


def test_a_failed_recipients_step_is_retried_without_a_second_event(realm, drain_events,
                                                                     register_queue,
                                                                     monkeypatch):
    from chalicelib.fanout.recipients import RecipientStep
    from chalicelib.realtime.reader import read_events

    channel(realm.owner, "general", [realm.owner, realm.member])
    queue_id = register_queue(realm.member, event_types=["message"])["queue_id"]
    original = RecipientStep.flush
    failures = {"left": 1}

    def failing_once(self):
        if failures["left"]:
            failures["left"] -= 1
            raise RuntimeError("the markers could not be written")
        return original(self)

    monkeypatch.setattr(RecipientStep, "flush", failing_once)
    # WHEN the recipients' state fails the first time the batch is handled
    message_id = send(realm.owner, "general", "t")
    drain_events()
    # THEN the batch came again: one event in the queue, and the message is unread
    # until read, then read everywhere (the markers were written on the retry)
    assert failures["left"] == 0
    assert [e["message"]["id"] for e in read_events(queue_id, -1)] == [message_id]
    _everywhere_unread(realm.member, message_id)
    assert set_flags(realm.member, [message_id], "add", "read").ok
    _everywhere_read(realm.member, message_id)
