"""Appending to many queues at once: each queue's first chunk as a PartiQL INSERT.

A stream batch for a large channel appends one small chunk to each of many queues.
`append` puts each with a conditional PutItem; here the first chunk of every queue goes
into BatchExecuteStatement requests of 25 INSERT statements. DynamoDB runs them one by
one, and an INSERT fails with DuplicateItem when its key exists: the same condition as
`append`'s put, the same write units, a 25th of the requests. A queue whose insert
failed (another appender took the id, a throttle) and a queue with more than one chunk
continue through `append` itself (tail read, retries, dedup by key), so every queue ends
as `append` alone would have left it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from botocore.exceptions import BotoCoreError, ClientError

from chalicelib.aws import aws_clients
from chalicelib.aws.log import logger
from chalicelib.delivery.append import (
    Appended,
    Pending,
    append,
    current_tail,
    known_tails,
    new_chunk,
    record_written,
    take_chunk,
)
from chalicelib.delivery.queues import is_live
from chalicelib.models.events import EventQueue, QueueEvent

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import BatchStatementRequestTypeDef

STATEMENTS_PER_REQUEST = 25   # DynamoDB's limit for BatchExecuteStatement
T = TypeVar("T")
R = TypeVar("R")
# A parallel map (the fan-out's pool); results in the order of the inputs.
Mapper = Callable[[Callable[[T], R], Iterable[T]], Iterable[R]]


@dataclass
class _Job:
    queue: EventQueue
    items: list[Pending]
    result: Appended = field(default_factory=Appended)
    chunk: list[Pending] = field(default_factory=list)
    rest: list[Pending] = field(default_factory=list)
    start: int = 0
    conn: str | None = None
    item: dict[str, Any] = field(default_factory=dict)   # the chunk, as DynamoDB JSON
    written: bool = False
    failed: bool = False


def append_many(work: Sequence[tuple[EventQueue, list[Pending]]],
                parallel: Mapper[Any, Any]) -> list[Appended | None]:
    """Appends each queue's items, as `append` would; None where a queue's append failed
    (its events are not in the queue; the caller offers the records again)."""
    jobs = [_Job(queue, items) for queue, items in work]
    # Each request's 25 queues prepared, then inserted, by one task: the first requests
    # go out while later queues are prepared (preparing all first left the database
    # idle for a sixth of a 1,000-queue append).
    groups = [jobs[i:i + STATEMENTS_PER_REQUEST]
              for i in range(0, len(jobs), STATEMENTS_PER_REQUEST)]
    list(parallel(_prepare_and_insert, groups))
    list(parallel(_finish, [job for job in jobs if job.chunk and (job.rest or not job.written)]))
    return [None if job.failed else job.result for job in jobs]


def _prepare_and_insert(group: list[_Job]) -> None:
    for job in group:
        _prepare(job)
    inserts = [job for job in group if job.chunk]
    if inserts:
        _insert(inserts)


def _prepare(job: _Job) -> None:
    """The queue's tail (known, or read), the items it lacks, and its first chunk."""
    queue = job.queue
    if not is_live(queue):
        return
    try:
        tail = current_tail(queue, job.items)
    except Exception:  # noqa: BLE001 - this queue alone fails; the stream retries it
        logger.exception("tail read failed", extra={"queue_id": queue.queue_id})
        job.failed = True
        return
    job.result.conn = tail.conn
    pending = [p for p in job.items if not p.key or p.key not in tail.keys]
    if not pending:
        return
    job.chunk = take_chunk(pending)
    job.rest = pending[len(job.chunk):]
    job.start = max(tail.last_id, queue.acked_through) + 1
    job.conn = tail.conn
    job.item = new_chunk(queue.queue_id, job.start, job.chunk, tail.conn).serialize()


def _statement(item: dict[str, Any]) -> BatchStatementRequestTypeDef:
    names = sorted(item)
    values = ", ".join(f"'{name}': ?" for name in names)
    return {"Statement": f'INSERT INTO "{QueueEvent.Meta.table_name}" VALUE {{{values}}}',
            "Parameters": [item[name] for name in names]}


def _insert(jobs: list[_Job]) -> None:
    """One BatchExecuteStatement; a statement that failed leaves its job to `append`."""
    failed: list[bool]
    try:
        responses = aws_clients.dynamodb().batch_execute_statement(
            Statements=[_statement(job.item) for job in jobs])["Responses"]
        failed = ["Error" in response for response in responses]
    except (ClientError, BotoCoreError) as error:   # the whole request: `append` retries
        logger.warning("batched append failed", extra={"error": str(error)})
        failed = [True] * len(jobs)
    for job, refused in zip(jobs, failed, strict=True):
        if refused:
            # DuplicateItem: another appender took this id; the tail moved.
            known_tails.forget(job.queue.queue_id)
            continue
        job.written = True
        record_written(job.result, job.queue.queue_id, job.start, job.chunk, job.conn)


def _finish(job: _Job) -> None:
    """What the batch did not write, through `append` (after the chunk it wrote, or all
    of the queue's items again: keys already in the queue are skipped)."""
    try:
        more = append(job.queue, job.rest if job.written else job.items)
    except Exception:  # noqa: BLE001 - this queue alone fails; the stream retries it
        logger.exception("append failed", extra={"queue_id": job.queue.queue_id})
        job.failed = True
        return
    job.result.events.extend(more.events)
    job.result.conn = more.conn or job.result.conn
