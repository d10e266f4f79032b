"""GET /events: returns new events, waiting a bounded time, with heartbeats."""
from __future__ import annotations

import time
import uuid
from typing import Literal, TypedDict

from chalicelib import config
from chalicelib.events.queues import (
    access_queue,
    acknowledge,
    append_events,
    bad_queue,
    is_live,
    read_events,
)
from chalicelib.events.types import QueuedEvent
from chalicelib.http.auth import Principal
from chalicelib.models.events import EventQueue


class HeartbeatEvent(TypedDict):
    """Sent when a blocking GET /events waited in vain, so the client knows all is well."""

    type: Literal["heartbeat"]


class GetEventsResult(TypedDict):
    events: list[QueuedEvent]
    queue_id: str


def get_events(caller: Principal, queue_id: str, last_event_id: int | None,
               dont_block: bool) -> GetEventsResult:
    queue = access_queue(caller.realm_id, caller.user_id, queue_id)
    after = -1 if last_event_id is None else last_event_id
    if after > queue.last_event_id:
        # An id this queue never gave out: the client holds another queue's position.
        raise bad_queue(queue_id)
    acknowledge(queue, after)
    events = read_events(queue_id, after) if queue.last_event_id > after else []
    if events or dont_block:
        return {"events": events, "queue_id": queue_id}
    return {"events": _wait_for_events(queue, after), "queue_id": queue_id}


def _wait_for_events(queue: EventQueue, after: int) -> list[QueuedEvent]:
    """Polls only the queue item (one small read) until something arrives or time is up."""
    deadline = time.monotonic() + config.longpoll_wait_seconds()
    interval = config.longpoll_poll_interval_seconds()
    while time.monotonic() < deadline:
        time.sleep(interval)
        current = EventQueue.get_or_none(queue.queue_id)
        if not is_live(current):
            raise bad_queue(queue.queue_id)
        assert current is not None
        if current.last_event_id > after:
            return read_events(queue.queue_id, after)
    # Nothing came: a heartbeat, appended like any event so ids keep increasing.
    heartbeat: HeartbeatEvent = {"type": "heartbeat"}
    append_events(queue, [(f"heartbeat:{uuid.uuid4().hex}", dict(heartbeat))])
    return read_events(queue.queue_id, after)
