"""Event queues: creation, lookup, acknowledgement, deletion, and who has which queues.

A queue's events live in chunks appended by `delivery/append.py`; this module keeps the
queue item (options, life, the acknowledged id) and the per-user directory the fan-out
reads to find an audience's queues (`UserQueues`, read with BatchGetItem).
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeGuard

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from chalicelib.core.errors import ApiError, ErrorCode
from chalicelib.delivery.wake import delete_wake_queue
from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.events import EventQueue, UserQueues
from chalicelib.models.side_by_side import KEYS_PER_REQUEST, read_all, side_by_side

QUEUE_IDLE_LIFETIME = timedelta(minutes=10)
# The longest a client may ask a queue to live unpolled (idle_queue_timeout): well within
# the day its events are kept (delivery/append.EVENT_RETENTION), so a queue never
# outlives events it has not delivered. It is the reference's "mobile" lifetime.
MAX_QUEUE_IDLE_LIFETIME = timedelta(hours=12)
# A poll renews the queue's life at most once per ACK_WRITE_INTERVAL: it writes an
# expiry this much past the lifetime, so a queue lives 10 to 11 minutes after its
# last poll, and a waiting client costs one queue write a minute instead of one a poll.
ACK_WRITE_INTERVAL = timedelta(minutes=1)
PUBLIC_WATCHERS = 0    # the UserQueues entry listing a realm's all_public_streams queues
MAX_QUEUE_ID_LENGTH = 64      # ids are UUIDs (36 characters)


def _expiry(lifetime: timedelta = QUEUE_IDLE_LIFETIME) -> datetime:
    return datetime.now(UTC) + lifetime


def idle_lifetime(queue: EventQueue) -> timedelta:
    """How long the queue lives after its last poll."""
    return QUEUE_IDLE_LIFETIME if queue.idle_seconds is None else timedelta(
        seconds=int(queue.idle_seconds))


def is_live(queue: EventQueue | None) -> TypeGuard[EventQueue]:
    # TTL deletion is lazy (and never happens on moto): check expiry on every read.
    return queue is not None and queue.expires_at > datetime.now(UTC)


def create_queue(realm_id: int, user_id: int, options: dict[str, Any],
                 role: int | None = None, idle_seconds: int | None = None) -> EventQueue:
    lifetime = QUEUE_IDLE_LIFETIME if idle_seconds is None else timedelta(seconds=idle_seconds)
    queue = EventQueue(f"{uuid.uuid4()}", realm_id=realm_id, user_id=user_id,
                       options=options, role=role, created=int(datetime.now(UTC).timestamp()),
                       expires_at=_expiry(lifetime), idle_seconds=idle_seconds)
    queue.save(condition=EventQueue.queue_id.does_not_exist())
    # Listed after it exists: the fan-out never finds an id without its queue item.
    _list(realm_id, user_id, queue.queue_id)
    if options.get("all_public_streams"):
        _list(realm_id, PUBLIC_WATCHERS, queue.queue_id)
    return queue


def _list(realm_id: int, user_id: int, queue_id: str) -> None:
    UserQueues(realm_id, user_id).update(actions=[UserQueues.queue_ids.add({queue_id})])


def unlist(realm_id: int, owner_ids: Iterable[int], queue_ids: set[str]) -> None:
    """Removes queue ids from directory entries (deleted or expired queues)."""
    for owner_id in sorted(set(owner_ids)):
        UserQueues(realm_id, owner_id).update(actions=[UserQueues.queue_ids.delete(queue_ids)])


def wait_until_indexed(queue: EventQueue, timeout: float = 2.0) -> bool:
    """Waits until the realm index (by_user, eventually consistent) lists the queue.

    Realm-wide events find queues through that index; registration reads the initial
    state only after this, so an event committed after that read reaches the queue.
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
    return ApiError(f"No event queue {queue_id}: it has expired or never existed",
                    code=ErrorCode.BAD_EVENT_QUEUE_ID,
                    queue_id=queue_id)


def access_queue(realm_id: int, user_id: int, queue_id: str) -> EventQueue:
    """The caller's live queue; unknown, foreign and expired queues look the same."""
    if not 0 < len(queue_id) <= MAX_QUEUE_ID_LENGTH:   # DynamoDB refuses such keys
        raise bad_queue(queue_id)
    queue = EventQueue.get_or_none(queue_id)
    if not is_live(queue) or queue.realm_id != realm_id or queue.user_id != user_id:
        raise bad_queue(queue_id)
    return queue


def acknowledge(queue: EventQueue, last_event_id: int) -> None:
    """Extends the queue's life (its idle lifetime from now) and records the client's
    acknowledged id, at most once per ACK_WRITE_INTERVAL (a busy client polls after
    every batch of events: the write was a fifth of the requests under load).

    Acknowledged events are not deleted (a delete costs as much as the append did):
    reads start after the acknowledged id, and the chunks expire by TTL. The recorded
    id may trail the client's by up to a minute; nothing depends on it sooner: new ids
    start after the queue's newest chunk, and chunks live a day (EVENT_RETENTION), so
    the recorded id is the floor only for a queue polled for a day without a new chunk,
    by when it has long been written.
    """
    lifetime = idle_lifetime(queue)
    if queue.expires_at - datetime.now(UTC) > lifetime:
        return   # renewed less than ACK_WRITE_INTERVAL ago
    actions: list[Action] = [EventQueue.expires_at.set(_expiry(lifetime + ACK_WRITE_INTERVAL))]
    if last_event_id > queue.acked_through:
        actions.append(EventQueue.acked_through.set(last_event_id))
    try:
        # The condition keeps a queue deleted meanwhile from coming back as a fragment.
        queue.update(actions=actions, condition=EventQueue.queue_id.exists())
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise
        raise bad_queue(queue.queue_id) from None


def delete_queue(queue: EventQueue) -> None:
    queue.delete()
    if queue.wake_url:
        delete_wake_queue(queue.wake_url)
    owners = [queue.user_id]
    if (queue.options or {}).get("all_public_streams"):
        owners.append(PUBLIC_WATCHERS)
    unlist(queue.realm_id, owners, {queue.queue_id})


def listed_queue_ids(realm_id: int, user_ids: Iterable[int], parallel: bool = True
                     ) -> dict[int, set[str]]:
    """The directory entries of these users (strongly consistent BatchGetItem, the pages
    of a large channel side by side unless not `parallel`)."""
    wanted = sorted(set(user_ids))
    found: dict[int, set[str]] = {user_id: set() for user_id in wanted}
    for entry in read_all(UserQueues, [(realm_id, user_id) for user_id in wanted],
                          consistent_read=True, parallel=parallel):
        found[int(entry.user_id)] = set(entry.queue_ids or ())
    return found


def load_queues(queue_ids: Iterable[str], parallel: bool = True) -> dict[str, EventQueue]:
    """Queue items by id (strongly consistent BatchGetItem); missing ids are left out."""
    return {queue.queue_id: queue
            for queue in read_all(EventQueue, sorted(set(queue_ids)), consistent_read=True,
                                  parallel=parallel)}


def queues_of_users(realm_id: int, user_ids: Iterable[int]) -> list[EventQueue]:
    """Live queues of these users: per hundred users, a BatchGetItem of their directory
    entries, then one of their queues; the hundreds side by side, so a large channel's
    second reads start as soon as its first page is in (not after the last).

    Ids whose queue is gone or expired are removed from the directory on the way.
    """
    wanted = sorted(set(user_ids))
    pages = [wanted[i:i + KEYS_PER_REQUEST] for i in range(0, len(wanted), KEYS_PER_REQUEST)]
    if len(pages) <= 1:
        return _live_queues(realm_id, wanted, parallel=True)
    return sorted((q for found in side_by_side(
        lambda page: _live_queues(realm_id, page, parallel=False), pages) for q in found),
        key=_queue_order)


def _live_queues(realm_id: int, user_ids: list[int], parallel: bool) -> list[EventQueue]:
    listed = listed_queue_ids(realm_id, user_ids, parallel=parallel)
    queues = load_queues((q for ids in listed.values() for q in ids), parallel=parallel)
    live = [q for q in queues.values() if is_live(q) and q.realm_id == realm_id]
    for owner_id, ids in listed.items():
        stale = {q for q in ids if q not in queues or not is_live(queues[q])}
        if stale:
            unlist(realm_id, [owner_id], stale)
    return sorted(live, key=_queue_order)


def _queue_order(queue: EventQueue) -> tuple[int, int, str]:
    return (queue.user_id, queue.created, queue.queue_id)


def public_watcher_queues(realm_id: int) -> list[EventQueue]:
    """Live queues registered with all_public_streams."""
    return [q for q in queues_of_users(realm_id, [PUBLIC_WATCHERS])
            if (q.options or {}).get("all_public_streams")]


def queues_of_realm(realm_id: int, owners: Condition | None = None) -> list[EventQueue]:
    """Every live queue of the realm (for realm-wide audiences: reads match the audience);
    `owners`: a condition on the owner's id (the fan-out's range of people)."""
    return [q for q in EventQueue.by_user.query(realm_id, owners) if is_live(q)]


def set_receives_typing_notifications(realm_id: int, user_id: int, value: bool) -> None:
    """Copies the owner's setting onto each live queue (the fan-out reads it there)."""
    _update_live_queues(realm_id, user_id, [EventQueue.receives_typing_notifications.set(value)])


def set_queues_role(realm_id: int, user_id: int, role: int) -> None:
    """Copies the owner's new role onto each live queue: the fan-out decides by it what
    the queue may receive (every public channel, events for some roles, others'
    real addresses)."""
    _update_live_queues(realm_id, user_id, [EventQueue.role.set(role)])


def _update_live_queues(realm_id: int, user_id: int, actions: list[Action]) -> None:
    for queue in queues_of_users(realm_id, [user_id]):
        try:
            queue.update(actions=actions, condition=EventQueue.queue_id.exists())
        except UpdateError as error:
            if not is_write_condition_failure(error):
                raise   # else deleted meanwhile: nothing to keep in step
