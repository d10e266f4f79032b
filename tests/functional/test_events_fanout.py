"""The fan-out handler on synthetic stream records: concurrency, redelivery, batching."""
from __future__ import annotations

import itertools
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chalicelib.core.principal import Principal
from chalicelib.delivery.queues import create_queue
from chalicelib.fanout import slices
from chalicelib.fanout.batch import handle_stream_batch
from chalicelib.models.events import Outbox, QueueEvent
from chalicelib.realtime.reader import get_events
from tests.functional.conftest import stream_record

# The records here are made by hand ("custom" events): no contract describes them.
pytestmark = pytest.mark.handmade_events

_realm_ids = itertools.count(2 * 10**6)
_sequence = itertools.count(10**9)


def outbox(realm_id: int, event: dict[str, Any], audience: dict[str, Any]) -> Outbox:
    """An outbox item as the stream would carry it (never written: the handler reads images)."""
    return Outbox(uuid.uuid4().hex, realm_id=realm_id, event=event, audience=audience,
                  created=0, expires_at=datetime.now(UTC) + timedelta(hours=1))


def records_for(items: list[Outbox]) -> list[dict[str, Any]]:
    return [stream_record(item, next(_sequence)) for item in items]


def read_all(realm_id: int, user_id: int, queue_id: str) -> list[dict[str, Any]]:
    caller = Principal(realm_id, user_id, "reader@example.com", 400, False)
    return get_events(caller, queue_id, -1, True)["events"]


def test_concurrent_fanout_with_redelivery_loses_and_duplicates_nothing(aws):
    # GIVEN one queue, 8 threads feeding the handler 400 events in stream batches (each
    # thread also redelivers a batch), and one reader acknowledging as it goes (8 writers
    # on one tail lose races all the time: 400 events are 88 contended batches; 1,000
    # took 2.5 minutes, a quarter of the suite's time)
    realm_id, user_id = next(_realm_ids), 1
    caller = Principal(realm_id, user_id, "reader@example.com", 400, False)
    queue_id = create_queue(realm_id, user_id, {"event_types": ["custom"]}).queue_id
    writers, per_writer, batch_size = 8, 50, 5
    total = writers * per_writer
    received: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            items = [outbox(realm_id, {"type": "custom", "seq": [worker, n]},
                            {"users": [user_id]}) for n in range(per_writer)]
            batches = [records_for(items[i:i + batch_size])
                       for i in range(0, per_writer, batch_size)]
            for batch in [*batches, batches[len(batches) // 2]]:   # the last is a redelivery
                assert handle_stream_batch({"Records": batch}) == {"batchItemFailures": []}
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    def read() -> None:
        last = -1
        deadline = time.monotonic() + 300
        try:
            while len(received) < total and not errors and time.monotonic() < deadline:
                events = get_events(caller, queue_id, last, True)["events"]
                for event in events:
                    assert event["id"] > last, "ids must strictly increase"
                    last = event["id"]
                    received.append(event)
                if not events:
                    time.sleep(0.005)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    reader = threading.Thread(target=read)
    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    reader.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reader.join(timeout=300)
    assert errors == [] and not reader.is_alive()
    # THEN every event arrived exactly once, in increasing id order, each writer's in order
    seqs = [tuple(e["seq"]) for e in received]
    assert len(seqs) == total == len(set(seqs))
    for worker in range(writers):
        assert [n for w, n in seqs if w == worker] == list(range(per_writer))
    # AND nothing is left over after the reader's acknowledgements (no late duplicate)
    assert get_events(caller, queue_id, received[-1]["id"], True)["events"] == []


def test_events_of_one_batch_for_one_queue_are_appended_together_in_order(aws):
    # GIVEN 60 events for one queue in one stream batch
    realm_id, user_id = next(_realm_ids), 1
    queue_id = create_queue(realm_id, user_id, {"event_types": None}).queue_id
    items = [outbox(realm_id, {"type": "custom", "n": n}, {"users": [user_id]})
             for n in range(60)]
    # WHEN the handler runs
    assert handle_stream_batch({"Records": records_for(items)}) == {"batchItemFailures": []}
    # THEN they arrive in stream order with consecutive ids, stored as one chunk (one put)
    events = read_all(realm_id, user_id, queue_id)
    assert [e["n"] for e in events] == list(range(60))
    assert [e["id"] for e in events] == list(range(60))
    chunks = [c for c in QueueEvent.query(queue_id) if c.sk.startswith("e#")]
    assert [len(c.events) for c in chunks] == [60]


def test_a_failing_queue_fails_only_the_records_that_reach_it(aws, monkeypatch):
    # GIVEN two users' queues; record 1 reaches A, record 2 reaches B, record 3 both
    realm_id = next(_realm_ids)
    queue_a = create_queue(realm_id, 1, {"event_types": None}).queue_id
    queue_b = create_queue(realm_id, 2, {"event_types": None}).queue_id
    items = [outbox(realm_id, {"type": "custom", "n": 1}, {"users": [1]}),
             outbox(realm_id, {"type": "custom", "n": 2}, {"users": [2]}),
             outbox(realm_id, {"type": "custom", "n": 3}, {"users": [1, 2]})]
    records = records_for(items)
    original = slices.append

    def flaky(queue, items):
        if queue.queue_id == queue_a:
            raise RuntimeError("throttled")
        return original(queue, items)

    # WHEN appends to A fail
    monkeypatch.setattr(slices, "append", flaky)
    result = handle_stream_batch({"Records": records})
    # THEN only records 1 and 3 are reported, and B already has its events
    assert result == {"batchItemFailures": [
        {"itemIdentifier": records[0]["dynamodb"]["SequenceNumber"]},
        {"itemIdentifier": records[2]["dynamodb"]["SequenceNumber"]}]}
    assert [e["n"] for e in read_all(realm_id, 2, queue_b)] == [2, 3]
    # WHEN the stream retries from the first failed record (records 1..3 again)
    monkeypatch.setattr(slices, "append", original)
    assert handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    # THEN A gets its events and B gets nothing twice
    assert [e["n"] for e in read_all(realm_id, 1, queue_a)] == [1, 3]
    assert [e["n"] for e in read_all(realm_id, 2, queue_b)] == [2, 3]


def test_a_record_whose_audience_cannot_be_read_fails_alone(aws, monkeypatch):
    from chalicelib.aws.partial_batch import EntireBatchFailed
    from chalicelib.fanout.audience import AudienceResolver

    # GIVEN two records for two users' queues
    realm_id = next(_realm_ids)
    queue_a = create_queue(realm_id, 1, {"event_types": None}).queue_id
    queue_b = create_queue(realm_id, 2, {"event_types": None}).queue_id
    items = [outbox(realm_id, {"type": "custom", "n": 1}, {"users": [1]}),
             outbox(realm_id, {"type": "custom", "n": 2}, {"users": [2]})]
    records = records_for(items)
    original = AudienceResolver.queues_of_users

    def failing_for(users):
        def lookup(self, realm, user_ids):
            if set(user_ids) & users:
                raise RuntimeError("throttled")
            return original(self, realm, user_ids)
        return lookup

    # WHEN the second pass cannot read user 1's queues
    monkeypatch.setattr(AudienceResolver, "queues_of_users", failing_for({1}))
    result = handle_stream_batch({"Records": records})
    # THEN only that record is reported, and the other is delivered
    assert result == {"batchItemFailures": [
        {"itemIdentifier": records[0]["dynamodb"]["SequenceNumber"]}]}
    assert [e["n"] for e in read_all(realm_id, 2, queue_b)] == [2]
    # WHEN no record's audience can be read THEN the invocation fails whole (the
    # stream retries the batch), once its background steps have ended
    monkeypatch.setattr(AudienceResolver, "queues_of_users", failing_for({1, 2}))
    with pytest.raises(EntireBatchFailed):
        handle_stream_batch({"Records": records})
    # WHEN the records come again THEN each queue has its event once
    monkeypatch.setattr(AudienceResolver, "queues_of_users", original)
    assert handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    assert [e["n"] for e in read_all(realm_id, 1, queue_a)] == [1]
    assert [e["n"] for e in read_all(realm_id, 2, queue_b)] == [2]


def test_records_that_are_not_outbox_inserts_are_ignored(aws):
    # GIVEN moto's extra records: a key-only INSERT, a no-op MODIFY, a TTL REMOVE
    realm_id = next(_realm_ids)
    queue_id = create_queue(realm_id, 1, {"event_types": None}).queue_id
    item = outbox(realm_id, {"type": "custom"}, {"users": [1]})
    key_only = stream_record(item, next(_sequence))
    key_only["dynamodb"].pop("NewImage")
    modify = stream_record(item, next(_sequence), "MODIFY")
    remove = stream_record(item, next(_sequence), "REMOVE")
    # WHEN the handler gets them
    result = handle_stream_batch({"Records": [key_only, modify, remove]})
    # THEN nothing fails and nothing is delivered
    assert result == {"batchItemFailures": []}
    assert read_all(realm_id, 1, queue_id) == []


def test_expired_and_foreign_queues_get_nothing(aws):
    realm_id = next(_realm_ids)
    live = create_queue(realm_id, 1, {"event_types": None})
    expired = create_queue(realm_id, 1, {"event_types": None})
    expired.update(actions=[expired.__class__.expires_at.set(
        datetime.now(UTC) - timedelta(seconds=1))])
    other_realm = create_queue(realm_id + 1, 1, {"event_types": None})
    handle_stream_batch({"Records": records_for([
        outbox(realm_id, {"type": "custom"}, {"realm": True})])})
    assert [e["type"] for e in read_all(realm_id, 1, live.queue_id)] == ["custom"]
    stored = [e.sk for q in (expired, other_realm)
              for e in QueueEvent.query(q.queue_id) if e.sk.startswith("e#")]
    assert stored == []
