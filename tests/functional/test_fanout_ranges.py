"""A batch whose audience is larger than one invocation takes is cut by ranges of people
(fanout/audience_slices.py): each range does everything per person for its people, the
batch's own invocation also the batch-wide steps, and nothing is delivered twice or
lost, also when a range fails."""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib.fanout import audience_slices
from chalicelib.fanout import batch as fanout
from chalicelib.fanout.scope import Scope
from chalicelib.models.channels import user_key
from chalicelib.models.message_flags import UnreadMessage
from chalicelib.models.pending_deliveries import PendingDelivery

PEOPLE = 3


@pytest.fixture
def ranges(monkeypatch) -> list[dict[str, Any]]:
    """Ranges of about 3 people, run in this process; returns the payloads they carried."""
    monkeypatch.setenv("FANOUT_SLICE_PEOPLE", str(PEOPLE))
    carried: list[dict[str, Any]] = []
    run = fanout.run_range_here

    def recording(payload: dict[str, Any]) -> Any:
        carried.append(payload.get(audience_slices.RANGE_KEY, payload))
        return run(payload)

    monkeypatch.setattr(fanout, "run_range_here", recording)
    return carried


@pytest.fixture
def crowd(realm, drain_events, register_queue):
    """Ten people in channel `crowd`, each with a queue of message events."""
    people = [realm.add_user(f"Crowd {n}") for n in range(10)]
    response = realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "crowd"}], "principals": [p.user_id for p in people]})
    assert response.ok, response.json
    drain_events()
    queues = {p.user_id: register_queue(p, event_types=["message"])["queue_id"]
              for p in people}
    return people, queues


def _messages(fetch_events, account, queue_id: str) -> list[str]:
    return [e["message"]["content"] for e in fetch_events(account, queue_id)
            if e["type"] == "message"]


def test_a_large_channel_is_fanned_out_in_ranges_of_people(realm, crowd, ranges,
                                                            drain_events, fetch_events):
    people, queues = crowd
    # WHEN two messages to the channel and a direct message are fanned out in one batch
    sent = [realm.owner.post("/messages", {"type": "stream", "to": "crowd", "topic": "t",
                                           "content": f"hello {n}"}).json["id"]
            for n in range(2)]
    direct = realm.owner.post("/messages", {"type": "private", "content": "psst",
                                            "to": [people[-1].user_id]}).json["id"]
    drain_events()
    # THEN other invocations took ranges of the people (this one kept the first), each
    # with the batch's records
    assert len(ranges) >= 2
    assert all(len(p["records"]) >= 3 for p in ranges)
    # AND every queue got the batch's messages once, in order
    for person in people:
        expected = ["hello 0", "hello 1"] + (["psst"] if person is people[-1] else [])
        assert _messages(fetch_events, person, queues[person.user_id]) == expected
    # AND every reader has an unread marker of each message, written by their range;
    # the messages' flight is settled
    for person in people:
        markers = {int(m.message_id) for m in UnreadMessage.query(
            user_key(realm.realm_id, person.user_id))}
        assert set(sent) <= markers
        assert (direct in markers) == (person is people[-1])
    for message_id in [*sent, direct]:
        assert PendingDelivery.get_or_none(realm.realm_id, message_id) is None
    # AND the unread counts say so
    state = people[0].post("/register", {"fetch_event_types": ["message",
                                                               "update_message_flags"]})
    assert state.json["unread_msgs"]["count"] == 2


def test_a_failed_range_fails_the_batch_and_the_retry_duplicates_nothing(
        realm, crowd, monkeypatch, drain_events, fetch_events):
    people, queues = crowd
    monkeypatch.setenv("FANOUT_SLICE_PEOPLE", str(PEOPLE))
    run = fanout.run_range_here
    failing = {"left": 1}

    def once_broken(payload: dict[str, Any]) -> Any:
        if failing["left"]:
            failing["left"] -= 1
            raise RuntimeError("a range's invocation died")
        return run(payload)

    monkeypatch.setattr(fanout, "run_range_here", once_broken)
    message_id = realm.owner.post("/messages", {"type": "stream", "to": "crowd",
                                                "topic": "t", "content": "again"}).json["id"]
    # WHEN the first delivery loses a range and the stream offers the record again
    records = drain_events.read()
    first = fanout.handle_stream_batch({"Records": records})
    message_record = next(r["dynamodb"]["SequenceNumber"] for r in records
                          if "hello" not in str(r) and "again" in str(r))
    assert {"itemIdentifier": message_record} in first["batchItemFailures"]
    assert PendingDelivery.get_or_none(realm.realm_id, message_id) is not None
    assert fanout.handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    # THEN the retry completed it: every queue has the message exactly once, every reader
    # a marker, and the flight is settled
    for person in people:
        assert _messages(fetch_events, person, queues[person.user_id]) == ["again"]
        assert UnreadMessage.get_or_none(user_key(realm.realm_id, person.user_id),
                                         message_id) is not None
    assert PendingDelivery.get_or_none(realm.realm_id, message_id) is None
    assert failing["left"] == 0


def test_ranges_cover_every_id_once():
    scopes = [Scope(None, 9), Scope(10, 19), Scope(20, None)]
    for user_id in (-5, 0, 9, 10, 19, 20, 10**9):
        assert sum(s.has(user_id) for s in scopes) == 1


def test_a_realm_wide_event_is_cut_by_ranges_too(realm, crowd, ranges, drain_events,
                                                 register_queue, fetch_events):
    people, _ = crowd
    queues = {p.user_id: register_queue(p, event_types=["realm_user"])["queue_id"]
              for p in people}
    # WHEN someone joins (every person of the realm hears of it)
    newcomer = realm.add_user("Newcomer")
    drain_events()
    # THEN the realm's people were cut into ranges, and each queue heard of it once
    assert len(ranges) >= 2
    for person in people:
        added = [e["person"]["user_id"] for e in fetch_events(person, queues[person.user_id])
                 if e["type"] == "realm_user" and e["op"] == "add"]
        assert added == [newcomer.user_id]


def test_a_small_public_channel_is_known_organization_wide_so_cut_by_ranges(
        realm, crowd, ranges, drain_events, register_queue, fetch_events):
    people, _ = crowd
    queues = {p.user_id: register_queue(p, event_types=["stream", "subscription"])[
        "queue_id"] for p in people}
    # WHEN a public channel of one subscriber is created (every member may know of it)
    assert realm.owner.post("/users/me/subscriptions",
                            {"subscriptions": [{"name": "tiny"}]}).ok
    drain_events()
    # THEN its audience is sized as the organization, not its one subscriber
    assert len(ranges) >= 2
    for person in people:
        heard = [(e["type"], e["op"]) for e in fetch_events(person, queues[person.user_id])]
        assert heard == [("stream", "create"), ("subscription", "peer_add")], heard
