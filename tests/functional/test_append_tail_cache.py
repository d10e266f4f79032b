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
