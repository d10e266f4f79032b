"""Appending with the process's known tails: a warm append is one PutItem, and a tail
that another process moved is found by the conditional put, never written over."""
from __future__ import annotations

from datetime import UTC, datetime

from chalicelib.delivery import append as appending
from chalicelib.delivery.append import Pending, append, event_sk, known_tails, now_ms
from chalicelib.delivery.queues import create_queue
from chalicelib.models.events import QueueEvent
from tests.functional.aws_hooks import hooked

OPTIONS = {"event_types": None, "narrow": [], "client_capabilities": {}}


def event(n: int, since: int | None = None) -> Pending:
    return Pending(f"rec{n}:0", {"type": "test", "n": n}, since)


def stored(queue_id: str) -> list[tuple[int, int]]:
    return [(e["id"], e["n"]) for chunk in QueueEvent.query(queue_id)
            for e in chunk.events or [] if e.get("type") == "test"]


def calls_during(action) -> list[str]:
    seen: list[str] = []

    def record(service: str, operation: str, params: dict) -> None:
        seen.append(operation)

    with hooked(record):
        action()
    return seen


def test_warm_append_is_one_put_and_a_moved_tail_is_reread(realm):
    queue = create_queue(realm.realm_id, realm.member.user_id, OPTIONS)
    since = now_ms()
    # GIVEN a first append (reads the tail) and a warm one (the tail is known)
    assert "Query" in calls_during(lambda: append(queue, [event(1, since)]))
    warm = calls_during(lambda: append(queue, [event(2, since)]))
    assert warm == ["PutItem"]
    # WHEN another process appends behind this one's back
    QueueEvent(queue.queue_id, event_sk(2), events=[{"type": "test", "n": 3, "id": 2}],
               keys=["rec3:0"], written=now_ms(), conn=None,
               expires_at=datetime.now(UTC) + appending.EVENT_RETENTION).save()
    # THEN the next append collides, reads the tail and lands after it
    moved = calls_during(lambda: append(queue, [event(4, since)]))
    assert moved.count("PutItem") == 2 and "Query" in moved
    assert stored(queue.queue_id) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    # AND a redelivered record is skipped, from what this process knows
    assert append(queue, [event(2, since), event(3, since)]).events == []
    assert stored(queue.queue_id) == [(0, 1), (1, 2), (2, 3), (3, 4)]


def test_known_tail_is_not_used_outside_its_window_or_below_the_floor(realm):
    queue = create_queue(realm.realm_id, realm.member.user_id, OPTIONS)
    append(queue, [event(1)])   # no dedup window: only the newest chunk was read
    # A record committed long before what this process knows needs the read
    assert known_tails.tail(queue.queue_id, now_ms() - 60_000, -1) is None
    # A floor above the known tail (acknowledged ids) needs the read too
    assert known_tails.tail(queue.queue_id, None, 5) is None
    assert known_tails.tail(queue.queue_id, None, 0).last_id == 0


def test_batched_appends_insert_first_chunks_and_fall_back_where_a_key_is_taken(realm):
    from chalicelib.delivery.batch_append import append_many

    queues = [create_queue(realm.realm_id, realm.member.user_id, OPTIONS) for _ in range(30)]
    since = now_ms()
    for queue in queues:            # tails known, as in a warm fan-out
        append(queue, [event(0, since)])
    # GIVEN another writer took the next id of one queue behind this process's back
    taken = queues[7]
    QueueEvent(taken.queue_id, event_sk(1), events=[{"type": "test", "n": 99, "id": 1}],
               keys=["other:0"], written=now_ms(), conn=None,
               expires_at=datetime.now(UTC) + appending.EVENT_RETENTION).save()
    # WHEN two events are appended to each of the 30 queues at once
    work = [(queue, [event(1, since), event(2, since)]) for queue in queues]
    results: list = []
    calls = calls_during(lambda: results.extend(append_many(work, map)))
    # THEN two requests of INSERTs carried the first chunks (30 = 25 + 5); the queue
    # whose key was taken went through a tail read and a put
    assert calls.count("BatchExecuteStatement") == 2
    assert calls.count("Query") == 1 and calls.count("PutItem") == 1
    assert [len(r.events) for r in results] == [2] * 30
    # AND a second run of the same records writes nothing
    assert calls_during(lambda: append_many(work, map)) == []
    # ...each queue holds its events once, in order, after what was there
    for queue in queues:
        expected = [(0, 0), (1, 99), (2, 1), (3, 2)] if queue is taken else [
            (0, 0), (1, 1), (2, 2)]
        assert stored(queue.queue_id) == expected, queue.queue_id


def test_batched_appends_use_one_request_per_25_queues(realm):
    from chalicelib.delivery.batch_append import append_many

    queues = [create_queue(realm.realm_id, realm.member.user_id, OPTIONS) for _ in range(30)]
    since = now_ms()
    for queue in queues:
        append(queue, [event(0, since)])
    work = [(queue, [event(1, since)]) for queue in queues]
    results: list = []
    calls = calls_during(lambda: results.extend(append_many(work, map)))
    assert calls == ["BatchExecuteStatement", "BatchExecuteStatement"]
    assert [len(r.events) for r in results] == [1] * 30
    assert all(stored(q.queue_id) == [(0, 0), (1, 1)] for q in queues)


def test_a_message_to_many_queues_arrives_once_in_each_through_the_batched_path(
        realm, drain_events, register_queue, fetch_events):
    from chalicelib.fanout.slices import BATCH_APPEND_FROM
    from tests.functional.edit_helpers import channel, send

    # GIVEN a channel of five users with two queues each (more than the batch threshold)
    accounts = [realm.owner, realm.admin, realm.moderator, realm.member, realm.guest]
    channel(realm.owner, "many-queues", members=accounts)
    queues = [(account, register_queue(account, event_types=["message"])["queue_id"])
              for account in accounts for _ in range(2)]
    assert len(queues) >= BATCH_APPEND_FROM
    # WHEN two messages are sent and the stream is fanned out after each
    first = send(realm.member, "many-queues", "t", "one")
    seen = calls_during(drain_events)
    second = send(realm.member, "many-queues", "t", "two")
    drain_events()
    # THEN the first chunks went out as INSERT batches
    assert "BatchExecuteStatement" in seen
    # AND every queue has both messages once, in order
    for account, queue_id in queues:
        got = [e["message"]["id"] for e in fetch_events(account, queue_id)
               if e["type"] == "message"]
        assert got == [first, second], (account.email, got)
