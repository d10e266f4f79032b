"""The push channel's connections: which one follows a queue, delivery, and cleanup.

A queue's connection is recorded in its event chunks (`conn`, carried from chunk to
chunk): connecting appends a heartbeat naming the new connection, so every append after
it reads the connection with the tail it reads anyway, and every event before it is in
what the client fetches right after connecting. Nothing is lost between the two, and
the queue stays the source of truth: a push is a best-effort delivery of what was just
appended, and a client that sees a gap in the ids fetches from the queue.
"""
from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypedDict

from chalicelib.aws.log import logger
from chalicelib.delivery import push
from chalicelib.delivery.append import Appended, Pending, append, read_tail
from chalicelib.delivery.wake import wake
from chalicelib.models.events import EventQueue, WsConnection

# API Gateway closes a WebSocket connection after 2 hours; the record outlives it a little.
CONNECTION_LIFETIME = timedelta(hours=2, minutes=10)


class HeartbeatEvent(TypedDict):
    """Sent when a blocking GET /events waited in vain, so the client knows all is well;
    also appended when a push connection (dis)connects and by the keepalive."""

    type: Literal["heartbeat"]


def heartbeat() -> Pending:
    event: HeartbeatEvent = {"type": "heartbeat"}
    return Pending("", dict(event))


def attach(queue: EventQueue, connection_id: str, last_event_id: int) -> str | None:
    """Makes the connection the queue's; returns the connection it replaced, if any."""
    WsConnection(connection_id, queue_id=queue.queue_id, realm_id=queue.realm_id,
                 user_id=queue.user_id, last_event_id=last_event_id,
                 connected_at=int(time.time()),
                 expires_at=datetime.now(UTC) + CONNECTION_LIFETIME).save()
    replaced: list[str | None] = []

    def take_over(current: str | None) -> str:
        replaced.append(current)
        return connection_id

    try:
        append(queue, [heartbeat()], conn_change=take_over)
    except Exception:
        WsConnection(connection_id).delete()
        raise
    previous = replaced[-1] if replaced else None
    return previous if previous != connection_id else None


def detach(queue: EventQueue, connection_id: str) -> None:
    """Stops pushing to the connection, if the queue still pushes to it."""
    if read_tail(queue.queue_id, None).conn == connection_id:
        append(queue, [heartbeat()],
               conn_change=lambda current: None if current == connection_id else current)


def forget(queue: EventQueue | None, connection_id: str) -> None:
    """Cleans up after a connection that is gone."""
    if queue is not None:
        detach(queue, connection_id)
    WsConnection(connection_id).delete()


def deliver(queue: EventQueue, appended: Appended) -> None:
    """Pushes freshly appended events to the queue's connection and wakes a waiting
    long-poll. Best effort: the events are in the queue whatever happens here."""
    if not appended.events:
        return
    if appended.conn and push.enabled():
        push_events(queue, appended.conn, appended.events)
    if queue.wake_url:
        wake(queue.wake_url, events=appended.events)


def push_events(queue: EventQueue, connection_id: str, events: list[dict[str, Any]]) -> bool:
    """Sends events to a connection; a gone connection is forgotten. False if not sent."""
    try:
        if push.send_events(connection_id, queue.queue_id, events):
            return True
        forget(queue, connection_id)
    except Exception:  # noqa: BLE001 - the client fetches what it missed from the queue
        logger.exception("push failed", extra={"queue_id": queue.queue_id})
    return False
