"""The fan-out's appends, and their second stage: audience slices on parallel invocations.

A stream batch appends to each queue of its audience. Up to `fanout_slice_queues()`
queues (1,000) the invocation does it itself, 16 queues at a time. Beyond that the work
is cut into slices of that many queues: this invocation keeps the first, and each other
slice goes to another invocation of the same function (a synchronous Lambda invoke
carrying the slice's queues and events, up to 6 MB), all at once. So the batch's wall
time is about one slice's, whatever the audience.

The batch waits for its slices before it returns, so the next batch of the shard cannot
append to a queue before this one has: order within a queue holds. A slice that fails
(or times out) fails its queues' records; the stream offers them again and appends skip
events already in a queue (dedup keys), so a late or repeated slice adds nothing twice.
A slice refused for want of concurrency runs here instead.

Outside Lambda (tests, the local stack) slices run in this process on their own threads,
through the same encoding, so a slice's payload is what an invocation would receive.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, Protocol, TypedDict

from botocore.exceptions import ClientError

from chalicelib import config
from chalicelib.aws import aws_clients
from chalicelib.aws.log import logger
from chalicelib.delivery.append import Appended, Pending, append
from chalicelib.delivery.batch_append import append_many
from chalicelib.delivery.connections import deliver
from chalicelib.models.events import EventQueue

APPEND_WORKERS = 16   # queues appended to in parallel; each queue's appends stay in order
# From this many queues, first chunks go 25 to a request (batch_append.py).
BATCH_APPEND_FROM = 8
SLICE_EVENT_KEY = "fanout_slice"   # an invocation carrying a slice, not stream records
WRITES_KEY = "writes"   # in a slice: items to write, not queues to append to
MAX_SLICES_AT_ONCE = 32
MAX_PAYLOAD_BYTES = 6_000_000   # a synchronous invocation's request limit (6 MB), less room
# One pool for the life of the process: its threads keep their botocore sessions and
# connections (PynamoDB holds them per thread) from batch to batch and, on AWS, from
# one warm invocation to the next.
append_pool = ThreadPoolExecutor(max_workers=APPEND_WORKERS, thread_name_prefix="append")
# Slices wait on other invocations (or, locally, use the append pool): their own threads.
slice_pool = ThreadPoolExecutor(max_workers=MAX_SLICES_AT_ONCE, thread_name_prefix="slice")

Work = Sequence[tuple[EventQueue, list[Pending]]]
# Per queue of the work: the events appended, or None if its append failed.
Results = list[int | None]


class SliceResponse(TypedDict, total=False):
    appended: Results   # a slice of queues: per queue, the events appended (or None)
    written: int        # a slice of items to write (write_slices.py): how many
    failed: list[str]   # a range of people (audience_slices.py): the records that failed
    rows_failed: bool   # ... and whether its recipients' rows failed
    delivered: int      # ... and how many events it appended


def append_all(work: Work) -> Results:
    """Appends each queue's items and delivers them, slicing a large audience."""
    size = config.fanout_slice_queues()
    if len(work) <= size:
        return append_here(work)
    slices = [work[i:i + size] for i in range(0, len(work), size)]
    runner = slice_runner()
    elsewhere = [slice_pool.submit(runner, encode_slice(part)) for part in slices[1:]]
    results = append_here(slices[0])
    for part, future in zip(slices[1:], elsewhere, strict=True):
        try:
            results.extend(future.result()["appended"])
        except Exception:  # noqa: BLE001 - the slice's records fail and come back
            logger.exception("fan-out slice failed", extra={"queues": len(part)})
            results.extend([None] * len(part))
    return results


def append_here(work: Work) -> Results:
    """Appends and delivers in this invocation."""
    if len(work) >= BATCH_APPEND_FROM:
        appended = append_many(work, append_pool.map)
        return list(append_pool.map(_deliver, work, appended))
    if len(work) == 1:
        return [_append_one(work[0])]
    return list(append_pool.map(_append_one, work))


def _append_one(entry: tuple[EventQueue, list[Pending]]) -> int | None:
    queue, items = entry
    try:
        result = append(queue, items)
    except Exception:  # noqa: BLE001 - reported as failed records, retried by the stream
        logger.exception("append failed", extra={"queue_id": queue.queue_id})
        return None
    return _deliver(entry, result)


def _deliver(entry: tuple[EventQueue, list[Pending]], appended: Appended | None) -> int | None:
    """Delivers what a batched append added to one queue; None if it failed."""
    if appended is None:
        return None
    deliver(entry[0], appended)
    return len(appended.events)


# ---- a slice as it travels: queues by what appending needs, events listed once


def encode_slice(work: Work) -> dict[str, Any]:
    """The slice as JSON: each distinct event once, each queue with its events' indexes.
    Most queues of a large audience get the same forms, so the payload grows by a few
    dozen bytes per queue."""
    index: dict[str, int] = {}
    events: list[list[Any]] = []

    def event_index(item: Pending) -> int:
        shown = None if item.shown is None or item.shown == item.stored else item.shown
        entry = [item.key, item.stored, item.since_ms, shown]
        text = json.dumps(entry, sort_keys=True, separators=(",", ":"))
        if text not in index:
            index[text] = len(events)
            events.append(entry)
        return index[text]

    queues = [[queue.queue_id, queue.realm_id, queue.user_id, queue.acked_through,
               queue.expires_at.timestamp(), queue.wake_url, [event_index(i) for i in items]]
              for queue, items in work]
    return {"events": events, "queues": queues}


def decode_slice(payload: dict[str, Any]) -> list[tuple[EventQueue, list[Pending]]]:
    events = [Pending(key, stored, since, shown) for key, stored, since, shown in payload["events"]]
    return [(EventQueue(queue_id, realm_id=realm_id, user_id=user_id, acked_through=acked,
                        expires_at=datetime.fromtimestamp(expires, UTC), wake_url=wake_url),
             [events[i] for i in indexes])
            for queue_id, realm_id, user_id, acked, expires, wake_url, indexes
            in payload["queues"]]


def handle_slice(payload: dict[str, Any]) -> SliceResponse:
    """An invocation carrying a slice of queues: appends and delivers it (never slices
    again)."""
    return {"appended": append_here(decode_slice(payload))}


# ---- where a slice runs


class SliceRunner(Protocol):
    def __call__(self, payload: dict[str, Any]) -> SliceResponse: ...


def slice_runner(here: SliceRunner | None = None) -> SliceRunner:
    """Runs a slice on another invocation of this function; outside Lambda, and when
    no invocation can take it, `here` (default: a slice of queues, in this process)."""
    local = here or run_in_process
    function = config.own_function_name()
    return InvokeFunction(function, local) if function else local


def run_in_process(payload: dict[str, Any]) -> SliceResponse:
    """Outside Lambda: the slice, through its JSON form, on this thread."""
    return handle_slice(json.loads(json.dumps(payload)))


class InvokeFunction:
    """A synchronous invocation of this function with the slice (`here` runs it in this
    invocation instead, when it cannot go)."""

    def __init__(self, function_name: str, here: SliceRunner) -> None:
        self.function_name = function_name
        self.here = here

    def __call__(self, payload: dict[str, Any]) -> SliceResponse:
        body = json.dumps({SLICE_EVENT_KEY: payload}, separators=(",", ":")).encode()
        if len(body) > MAX_PAYLOAD_BYTES:   # many large events: cheaper than splitting
            logger.info("fan-out slice too large to send; running it here",
                        extra={"bytes": len(body)})
            return self.here(payload)
        try:
            response = aws_clients.lambda_invoker().invoke(
                FunctionName=self.function_name, Payload=body)
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "TooManyRequestsException":
                raise
            # No concurrency left for a slice: this invocation does it.
            logger.info("no concurrency for a fan-out slice; running it here")
            return self.here(payload)
        answer = json.loads(response["Payload"].read() or b"null")
        if response.get("FunctionError") or not isinstance(answer, dict):
            raise RuntimeError(f"fan-out slice failed: {answer!r}"[:500])
        return answer  # type: ignore[return-value]
