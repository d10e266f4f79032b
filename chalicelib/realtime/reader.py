"""GET /events: returns new events, or waits a bounded time for some, with heartbeats.

A waiting request reads DynamoDB only when woken (its SQS wake queue gets a message
from the fan-out after each append) and once every LONGPOLL_CHECK_SECONDS as a safety
net, instead of polling the queue. A wake-up carries the events it announces when they
fit: if they follow the client's last event id without a gap, they are the answer and
the queue is not read again.

A blocking poll of a queue that has its wake queue starts by receiving, not by reading
the queue: the wake-ups of every append since the client's last poll are waiting there,
and the events they carry are usually the answer. (Reading the queue first found
nothing new for most polls of a busy client, which then waited and was answered by a
wake-up: a third of a poll's requests.) The queue is read when the wake-ups do not
follow on from the client's last event id (a gap, a wake-up without events, an id the
queue never gave out: then refused) and at the safety net, so an event whose wake-up
was lost waits at most LONGPOLL_CHECK_SECONDS.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypedDict

from chalicelib import config
from chalicelib.core.principal import Principal
from chalicelib.delivery.append import append, read_chunks
from chalicelib.delivery.connections import heartbeat
from chalicelib.delivery.payloads import resolve
from chalicelib.delivery.queues import access_queue, acknowledge, bad_queue
from chalicelib.delivery.types import QueuedEvent
from chalicelib.delivery.wake import CREDENTIALS, ensure_wake_queue, wait_for_wake
from chalicelib.models.events import EventQueue


class GetEventsResult(TypedDict):
    events: list[QueuedEvent]
    queue_id: str


def get_events(caller: Principal, queue_id: str, last_event_id: int | None,
               dont_block: bool, reauthenticate: Callable[[], object] | None = None,
               ) -> GetEventsResult:
    """`reauthenticate` checks the caller's credentials again (raising the auth error).
    A waiting request calls it when a wake-up says the user's keys changed, and on
    waking once LONGPOLL_CHECK_SECONDS have passed since its last check: a rotated or
    revoked key ends the wait at once, a deactivated account within that time. (Checking
    on every wake-up cost a GetItem per delivered batch: 7 % of the requests under load.)"""
    queue = access_queue(caller.realm_id, caller.user_id, queue_id)
    after = -1 if last_event_id is None else last_event_id
    read_first = dont_block or not queue.wake_url   # no wake-ups to take first
    if read_first:
        events = fetch_events(queue, after)
        if events or dont_block:
            return {"events": events, "queue_id": queue_id}
    return {"events": _wait_for_events(queue, after, reauthenticate, read=read_first),
            "queue_id": queue_id}


def fetch_events(queue: EventQueue, after: int) -> list[QueuedEvent]:
    """Events with id > after, oldest first, as clients receive them; acknowledges
    `after` and extends the queue's life. An `after` beyond any id the queue gave out
    is refused (BAD_EVENT_QUEUE_ID), as the reference does."""
    stored, newest = read_chunks(queue.queue_id, after)
    if after > max(newest, queue.acked_through):
        # An id this queue never gave out: the client holds another queue's position.
        raise bad_queue(queue.queue_id)
    acknowledge(queue, after)
    return resolve(stored)


def read_events(queue_id: str, after: int) -> list[QueuedEvent]:
    """Events with id > after, oldest first, as clients receive them."""
    return resolve(read_chunks(queue_id, after)[0])


def following(carried: tuple[QueuedEvent, ...] | list[QueuedEvent], after: int
              ) -> list[QueuedEvent]:
    """The events a wake-up carried that follow `after` without a gap, oldest first;
    empty unless the first of them is `after` + 1 (the queue is read instead). Those
    after a gap come with the next poll, which reads the queue."""
    by_id = {int(event["id"]): event for event in carried if int(event["id"]) > after}
    run: list[QueuedEvent] = []
    while after + 1 + len(run) in by_id:
        run.append(by_id[after + 1 + len(run)])
    return resolve(run) if run else []


def _wait_for_events(queue: EventQueue, after: int,
                     reauthenticate: Callable[[], object] | None, *, read: bool
                     ) -> list[QueuedEvent]:
    """`read`: whether the queue was read (and `after` checked) since the poll began;
    until it is, the wake-ups' events are the answer only if they follow `after`."""
    checked = time.monotonic()   # the request's own authentication
    deadline = checked + config.longpoll_wait_seconds()
    if deadline - time.monotonic() >= 1:
        url = ensure_wake_queue(queue)
        while (remaining := deadline - time.monotonic()) >= 1:
            said = wait_for_wake(url, min(remaining, config.longpoll_check_seconds()))
            if reauthenticate is not None and (
                    not said or CREDENTIALS in said.reasons
                    or time.monotonic() - checked >= config.longpoll_check_seconds()):
                reauthenticate()
                checked = time.monotonic()
            events = following(said.events, after)
            if events:
                if not read:   # they follow `after`, so the queue gave it out
                    acknowledge(queue, after)
                return events
            events = read_events(queue.queue_id, after) if read else fetch_events(queue, after)
            read = True
            if events:
                return events
    if not read:
        fetch_events(queue, after)   # refuses an id the queue never gave out
    # Nothing came: a heartbeat, appended like any event so ids keep increasing.
    append(queue, [heartbeat()])
    return read_events(queue.queue_id, after)
