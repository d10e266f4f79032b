"""Appending to an event queue: one conditional PutItem per queue and batch.

A queue's events are stored in chunks (`QueueEvent`, sk `e#<id of the chunk's first
event>`). An appender reads the newest chunks (one strongly consistent Query), numbers
its events after the newest id, and puts one chunk on the condition that no chunk with
that first id exists. Two appenders that read the same tail want the same key: one wins,
the other re-reads and retries. So ids strictly increase and never repeat, and no
event can land at or below an id a reader has seen (the client's acknowledged id is a
floor as well, for when the newest chunks have expired).

Redelivery: each event carries a dedup key (outbox record + form). A record's events
can only be in chunks written after the record was committed, so the appender reads the
chunks written since the oldest pending record's commit time (less a clock margin) and
skips the keys already there. That read is usually the newest chunk or two: no marker
items, no transaction, about one write unit per small event and queue.
"""
from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pynamodb.exceptions import PutError

from chalicelib.delivery.queues import is_live
from chalicelib.models.events import EventQueue, QueueEvent
from chalicelib.models.races import retry_lost_races

EVENT_RETENTION = timedelta(days=1)   # far beyond a queue's idle life (10 minutes)
MAX_EVENTS_PER_CHUNK = 100
MAX_CHUNK_BYTES = 96_000              # well under DynamoDB's 400 KB item limit
CLOCK_MARGIN_MS = 5_000               # how far two writers' clocks may disagree
TAIL_PAGE = 20
MAX_APPEND_ATTEMPTS = 100


def event_sk(event_id: int) -> str:
    return f"e#{event_id:020d}"


def _first_id(chunk: QueueEvent) -> int:
    return int(chunk.sk[2:])


def _last_id(chunk: QueueEvent) -> int:
    return _first_id(chunk) + len(chunk.events or []) - 1


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Pending:
    """One event to append: its dedup key ("" for none), the form to store, and the
    commit time (ms) of the record it came from (None: nothing to deduplicate)."""

    key: str
    stored: dict[str, Any]
    since_ms: int | None = None
    shown: dict[str, Any] | None = None   # the full form, when `stored` refers to a payload


@dataclass
class Tail:
    """What an appender needs to know of a queue: its newest id, its push connection,
    and the dedup keys of the chunks written in the window it asked for."""

    last_id: int = -1
    conn: str | None = None
    keys: set[str] = field(default_factory=set)


@dataclass
class Appended:
    """The events an append added (with their ids, full forms) and the queue's connection."""

    events: list[dict[str, Any]] = field(default_factory=list)
    conn: str | None = None


def read_tail(queue_id: str, since_ms: int | None) -> Tail:
    """The newest chunk, and the dedup keys of every chunk written since `since_ms`."""
    tail = Tail()
    # Chunks are in append order; a writer's clock may run CLOCK_MARGIN_MS off, so a
    # chunk older than twice that before `since_ms` has nothing written after it below.
    stop_before = None if since_ms is None else since_ms - 2 * CLOCK_MARGIN_MS
    page_size = 1 if since_ms is None else TAIL_PAGE
    first = True
    for chunk in QueueEvent.query(queue_id, QueueEvent.sk.startswith("e#"),
                                  scan_index_forward=False, consistent_read=True,
                                  page_size=page_size):
        if first:
            tail.last_id, tail.conn, first = _last_id(chunk), chunk.conn, False
        if stop_before is None or (chunk.written or 0) < stop_before:
            break
        tail.keys.update(k for k in chunk.keys or () if k)
    return tail


@dataclass
class _KnownTail:
    last_id: int
    conn: str | None
    known_from_ms: int                 # the keys of every chunk written since are here
    keys: dict[str, int] = field(default_factory=dict)   # dedup key -> written (ms)


class TailCache:
    """The tails of the queues this process appended to, so a warm fan-out appends
    with one PutItem instead of a Query and a PutItem.

    Safe because chunks are contiguous: any chunk written after what this process knows
    starts at the known last id + 1, the very key its next put wants, so a stale entry
    makes that conditional put fail, and the appender forgets the entry and reads the
    tail. Deduplication uses an entry only if it knows every chunk of the window the
    read would cover (`known_from_ms`); the acknowledged-id floor only if the entry is
    at or above it (a floor above a stale tail could miss the collision).
    """

    MAX_QUEUES = 20_000
    KEEP_MS = 10 * 60 * 1000

    def __init__(self) -> None:
        self._entries: OrderedDict[str, _KnownTail] = OrderedDict()
        self._lock = threading.Lock()

    def tail(self, queue_id: str, since_ms: int | None, acked_through: int) -> Tail | None:
        with self._lock:
            known = self._entries.get(queue_id)
            if known is None or known.last_id < acked_through:
                return None
            if since_ms is not None and since_ms - 2 * CLOCK_MARGIN_MS < known.known_from_ms:
                return None
            self._entries.move_to_end(queue_id)
            return Tail(known.last_id, known.conn, set(known.keys))

    def read(self, queue_id: str, tail: Tail, since_ms: int | None) -> None:
        """Remembers a tail just read (with the keys of its window)."""
        now = now_ms()
        known_from = now if since_ms is None else since_ms - 2 * CLOCK_MARGIN_MS
        with self._lock:
            self._put(queue_id, _KnownTail(tail.last_id, tail.conn, known_from,
                                           dict.fromkeys(tail.keys, now)))

    def wrote(self, queue_id: str, last_id: int, conn: str | None, keys: list[str]) -> None:
        """Adds a chunk this process wrote after a tail it knows."""
        now = now_ms()
        with self._lock:
            known = self._entries.get(queue_id)
            if known is None or known.last_id >= last_id:
                return   # forgotten, or another thread of this process wrote later
            known.last_id, known.conn = last_id, conn
            known.keys.update(dict.fromkeys((k for k in keys if k), now))
            if known.known_from_ms < now - self.KEEP_MS:
                known.keys = {k: t for k, t in known.keys.items() if t >= now - self.KEEP_MS}
                known.known_from_ms = now - self.KEEP_MS
            self._entries.move_to_end(queue_id)

    def forget(self, queue_id: str) -> None:
        with self._lock:
            self._entries.pop(queue_id, None)

    def _put(self, queue_id: str, known: _KnownTail) -> None:
        self._entries[queue_id] = known
        self._entries.move_to_end(queue_id)
        while len(self._entries) > self.MAX_QUEUES:
            self._entries.popitem(last=False)


known_tails = TailCache()


def current_tail(queue: EventQueue, items: list[Pending]) -> Tail:
    """The queue's tail for appending these items: known to this process, or read (with
    the keys of the window their records' commit times need)."""
    windows = [p.since_ms for p in items if p.since_ms is not None]
    since = min(windows) if windows else None
    tail = known_tails.tail(queue.queue_id, since, queue.acked_through)
    if tail is None:
        tail = read_tail(queue.queue_id, since)
        known_tails.read(queue.queue_id, tail, since)
    return tail


def new_chunk(queue_id: str, start: int, items: list[Pending], conn: str | None
              ) -> QueueEvent:
    """The chunk holding `items` with ids from `start` (not yet written)."""
    return QueueEvent(queue_id, event_sk(start),
                      events=[{**p.stored, "id": start + i} for i, p in enumerate(items)],
                      keys=[p.key for p in items], written=now_ms(), conn=conn,
                      expires_at=datetime.now(UTC) + EVENT_RETENTION)


def record_written(result: Appended, queue_id: str, start: int, items: list[Pending],
                   conn: str | None) -> None:
    """After a chunk is written: this process knows the new tail, and the result has
    the events in their full forms with their ids."""
    known_tails.wrote(queue_id, start + len(items) - 1, conn, [p.key for p in items])
    result.conn = conn
    result.events.extend({**(p.shown or p.stored), "id": start + i}
                         for i, p in enumerate(items))


def append(queue: EventQueue, items: list[Pending],
           conn_change: Callable[[str | None], str | None] | None = None) -> Appended:
    """Appends the items in order, skipping those already in the queue; returns them
    with their ids. `conn_change` maps the tail's connection to the new chunk's (a
    connect or disconnect marker); otherwise the connection is carried forward."""
    result = Appended()
    pending = list(items)
    tail: Tail | None = None

    def attempt() -> Appended:
        """Appends what is pending, chunk by chunk, after the tail as last read."""
        nonlocal pending, tail
        while pending and is_live(queue):
            if tail is None:
                tail = current_tail(queue, pending)
                result.conn = tail.conn
                pending = [p for p in pending if not p.key or p.key not in tail.keys]
                if not pending:
                    break
            chunk_items = take_chunk(pending)
            start = max(tail.last_id, queue.acked_through) + 1
            conn = conn_change(tail.conn) if conn_change else tail.conn
            try:
                new_chunk(queue.queue_id, start, chunk_items, conn).save(
                    condition=QueueEvent.sk.does_not_exist())
            except PutError:
                # If another appender took this id: read the tail again.
                tail = None
                known_tails.forget(queue.queue_id)
                raise
            record_written(result, queue.queue_id, start, chunk_items, conn)
            pending = pending[len(chunk_items):]
            tail = Tail(start + len(chunk_items) - 1, conn,
                        tail.keys | {p.key for p in chunk_items if p.key})
        return result

    # Appenders that took the same id back off briefly, growing with each lost race.
    if retry_lost_races(attempt, conflict=None, attempts=MAX_APPEND_ATTEMPTS,
                        backoff=0.002) is None:
        raise RuntimeError(f"could not append to queue {queue.queue_id}: too much contention")
    return result


def take_chunk(pending: list[Pending]) -> list[Pending]:
    """As many leading items as one chunk holds (at least one)."""
    size = 0
    for count, item in enumerate(pending[:MAX_EVENTS_PER_CHUNK]):
        size += len(json.dumps(item.stored)) + len(item.key) + 8
        if count and size > MAX_CHUNK_BYTES:
            return pending[:count]
    return pending[:MAX_EVENTS_PER_CHUNK]


def read_chunks(queue_id: str, after: int) -> tuple[list[dict[str, Any]], int]:
    """Stored events with id > after, oldest first (strongly consistent; payload
    references left for the caller to resolve), and the queue's newest id (-1: none).
    Usually one Query of the newest chunk; two when several chunks are new."""
    newest = next(iter(QueueEvent.query(queue_id, QueueEvent.sk.startswith("e#"),
                                        scan_index_forward=False, consistent_read=True,
                                        limit=1)), None)
    if newest is None or _last_id(newest) <= after:
        return [], -1 if newest is None else _last_id(newest)
    chunks = [newest]
    if _first_id(newest) > after + 1:
        # The chunks from after+1 up to the newest. A client that read whole chunks
        # resumes where the next one starts; only when none starts at after+1 is the
        # chunk holding it (starting below it) read too. (Reading it every time was a
        # third Query on most busy polls.)
        between = list(QueueEvent.query(
            queue_id, QueueEvent.sk.between(event_sk(after + 1), event_sk(_first_id(newest) - 1)),
            consistent_read=True))
        if not between or _first_id(between[0]) > after + 1:
            holding = next(iter(QueueEvent.query(
                queue_id, QueueEvent.sk <= event_sk(after + 1), scan_index_forward=False,
                consistent_read=True, limit=1)), None)
            if holding is not None and holding.sk.startswith("e#") and (
                    not between or holding.sk != between[0].sk):
                between.insert(0, holding)
        chunks = between + chunks
    return ([event for chunk in chunks for event in chunk.events or [] if event["id"] > after],
            _last_id(newest))
