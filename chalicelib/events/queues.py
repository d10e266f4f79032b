"""Event queues: creation, lookup, the append that keeps ids increasing, reads and pruning.

The append is a compare-and-set on the queue's `last_event_id` in the same transaction
as the new events and their dedup markers, so (a) ids strictly increase and no event
can land at or below an id a reader has already seen, and (b) a redelivered outbox
record is never appended twice.
"""
from __future__ import annotations

import random
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from pynamodb.exceptions import TransactWriteError, UpdateError

from chalicelib.http.errors import ApiError
from chalicelib.models.base import (
    cancellation_reasons,
    is_write_condition_failure,
    transaction,
)
from chalicelib.models.events import EventQueue, QueueEvent

QUEUE_IDLE_LIFETIME = timedelta(minutes=10)
DEDUP_RETENTION = timedelta(days=1)
EVENTS_PER_TRANSACTION = 49   # 1 queue update + 2 items per event <= 100
MAX_APPEND_ATTEMPTS = 100
MAX_QUEUE_ID_LENGTH = 64      # ids are UUIDs (36 characters)


def event_sk(event_id: int) -> str:
    return f"e#{event_id:020d}"


def dedup_sk(dedup_id: str) -> str:
    return f"d#{dedup_id}"


def _expiry(lifetime: timedelta = QUEUE_IDLE_LIFETIME) -> datetime:
    return datetime.now(UTC) + lifetime


def is_live(queue: EventQueue | None) -> bool:
    # TTL deletion is lazy (and never happens on moto): check expiry on every read.
    return queue is not None and queue.expires_at > datetime.now(UTC)


def create_queue(realm_id: int, user_id: int, options: dict[str, Any],
                 role: int | None = None) -> EventQueue:
    queue = EventQueue(f"{uuid.uuid4()}", realm_id=realm_id, user_id=user_id,
                       options=options, role=role, created=int(datetime.now(UTC).timestamp()),
                       expires_at=_expiry())
    queue.save(condition=EventQueue.queue_id.does_not_exist())
    return queue


def wait_until_indexed(queue: EventQueue, timeout: float = 2.0) -> bool:
    """Waits until the fan-out's index (by_user, eventually consistent) lists the queue.

    Registration reads the initial state only after this, so an event committed after
    that read finds the queue when its audience is resolved.
    """
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        if any(q.queue_id == queue.queue_id for q in EventQueue.by_user.query(
                queue.realm_id, EventQueue.user_id == queue.user_id)):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def bad_queue(queue_id: str) -> ApiError:
    return ApiError(f"Bad event queue ID: {queue_id}", code="BAD_EVENT_QUEUE_ID",
                    queue_id=queue_id)


def access_queue(realm_id: int, user_id: int, queue_id: str) -> EventQueue:
    """The caller's live queue; unknown, foreign and expired queues look the same."""
    if not 0 < len(queue_id) <= MAX_QUEUE_ID_LENGTH:   # DynamoDB refuses such keys
        raise bad_queue(queue_id)
    queue = EventQueue.get_or_none(queue_id)
    if not is_live(queue) or queue.realm_id != realm_id or queue.user_id != user_id:
        raise bad_queue(queue_id)
    return queue


def append_events(queue: EventQueue, items: list[tuple[str, dict[str, Any]]]) -> list[int]:
    """Appends (dedup id, event) pairs; returns the ids given. Skips already-appended ones."""
    pending = list(items)
    assigned: list[int] = []
    current: EventQueue | None = queue
    for attempt in range(MAX_APPEND_ATTEMPTS):
        if not pending:
            return assigned
        if not is_live(current):
            return assigned
        assert current is not None
        start = current.last_event_id
        batch = pending[:EVENTS_PER_TRANSACTION]
        try:
            _write_batch(current.queue_id, start, batch)
        except TransactWriteError as error:
            reasons = cancellation_reasons(error)
            if not reasons:
                raise
            # PynamoDB sends puts before updates: event i at 2i, its marker at 2i + 1.
            duplicates = {i for i in range(len(batch))
                          if len(reasons) > 2 * i + 1 and reasons[2 * i + 1] is not None}
            if duplicates:   # redelivered: those events are already in the queue
                pending = [item for i, item in enumerate(batch) if i not in duplicates] + \
                    pending[len(batch):]
            # Lost the compare-and-set to another writer: back off briefly, re-read, retry.
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
            current = EventQueue.get_or_none(current.queue_id)   # fresh last_event_id
            continue
        assigned.extend(range(start + 1, start + 1 + len(batch)))
        pending = pending[len(batch):]
        current.last_event_id = start + len(batch)
    raise RuntimeError(f"could not append to queue {queue.queue_id}: too much contention")


def _write_batch(queue_id: str, start: int, batch: list[tuple[str, dict[str, Any]]]) -> None:
    with transaction() as tx:
        tx.update(EventQueue(queue_id),
                  actions=[EventQueue.last_event_id.set(start + len(batch))],
                  condition=EventQueue.last_event_id == start)
        for offset, (dedup_id, event) in enumerate(batch):
            event_id = start + 1 + offset
            tx.save(QueueEvent(queue_id, event_sk(event_id), event={**event, "id": event_id},
                               expires_at=_expiry(DEDUP_RETENTION)),
                    condition=QueueEvent.sk.does_not_exist())
            tx.save(QueueEvent(queue_id, dedup_sk(dedup_id), expires_at=_expiry(DEDUP_RETENTION)),
                    condition=QueueEvent.sk.does_not_exist())


def read_events(queue_id: str, after_id: int) -> list[dict[str, Any]]:
    """Events with id > after_id, oldest first (strongly consistent)."""
    return [item.event for item in QueueEvent.query(
        queue_id, QueueEvent.sk.between(event_sk(after_id + 1), event_sk(10**19)),
        consistent_read=True)]


def acknowledge(queue: EventQueue, last_event_id: int) -> None:
    """Extends the queue's life and deletes the events the client has acknowledged."""
    acked = min(last_event_id, queue.last_event_id)
    actions = [EventQueue.expires_at.set(_expiry())]
    if acked > queue.acked_through:
        # Ids are consecutive per queue, so the keys to delete are known without a read.
        with QueueEvent.batch_write() as batch:
            for event_id in range(max(queue.acked_through + 1, acked - 999), acked + 1):
                batch.delete(QueueEvent(queue.queue_id, event_sk(event_id)))
        actions.append(EventQueue.acked_through.set(acked))
    try:
        # The condition keeps a queue deleted meanwhile from coming back as a fragment.
        queue.update(actions=actions, condition=EventQueue.queue_id.exists())
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise
        raise bad_queue(queue.queue_id) from None


def delete_queue(queue: EventQueue) -> None:
    queue.delete()


def queues_of_users(realm_id: int, user_ids: list[int]) -> list[EventQueue]:
    """Live queues of these users; one Query per user, or one per realm for large sets."""
    wanted = set(user_ids)
    if len(wanted) > 20:
        queues = [q for q in EventQueue.by_user.query(realm_id) if q.user_id in wanted]
    else:
        queues = [q for user_id in sorted(wanted)
                  for q in EventQueue.by_user.query(realm_id, EventQueue.user_id == user_id)]
    return [q for q in queues if is_live(q)]


def queues_of_realm(realm_id: int) -> list[EventQueue]:
    return [q for q in EventQueue.by_user.query(realm_id) if is_live(q)]


def set_receives_typing_notifications(realm_id: int, user_id: int, value: bool) -> None:
    """Copies the owner's setting onto each live queue (the fan-out reads it there)."""
    for queue in queues_of_users(realm_id, [user_id]):
        try:
            queue.update(actions=[EventQueue.receives_typing_notifications.set(value)],
                         condition=EventQueue.queue_id.exists())
        except UpdateError as error:
            if not is_write_condition_failure(error):
                raise   # else deleted meanwhile: nothing to keep in step
