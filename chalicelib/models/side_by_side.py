"""Many DynamoDB requests at once, instead of one after another.

PynamoDB's `batch_write` sends its items 25 to a request, each request after the last,
and a BatchGetItem takes 100 keys. A fan-out batch for a large channel reads a thousand
queues and writes thousands of items (a marker per reader, a posting per term), so its
wall time grew with the audience. Here the requests go out side by side on a small pool
of threads (each keeps its connection, models/sessions.py); PynamoDB still sends again
what DynamoDB leaves unprocessed. What runs on the pool must not use it in turn.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pynamodb.models import Model

ITEMS_PER_REQUEST = 25   # BatchWriteItem's limit
KEYS_PER_REQUEST = 100   # BatchGetItem's limit
WRITERS = 8
T = TypeVar("T")
R = TypeVar("R")
M = TypeVar("M", bound=Model)
_pool = ThreadPoolExecutor(max_workers=WRITERS, thread_name_prefix="batch-write")


def side_by_side(function: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """`function` over the items on the writers' pool; results in order. Raises the
    first error, once every call has ended."""
    futures = [_pool.submit(function, item) for item in items]
    errors = [f.exception() for f in futures]
    for error in errors:
        if error is not None:
            raise error
    return [f.result() for f in futures]


def read_all(model: type[M], keys: Sequence[Any], consistent_read: bool = False,
             parallel: bool = True) -> list[M]:
    """The items of these keys that exist (one model), 100 keys to a request, the
    requests side by side (one after another if not `parallel`: for a caller that runs
    on the pool itself)."""
    pages = [list(keys[i:i + KEYS_PER_REQUEST]) for i in range(0, len(keys), KEYS_PER_REQUEST)]

    def read(page: list[Any]) -> list[M]:
        return list(model.batch_get(page, consistent_read=consistent_read))

    if len(pages) <= 1 or not parallel:
        return [item for page in pages for item in read(page)]
    return [item for found in side_by_side(read, pages) for item in found]


def write_all(puts: Sequence[Model] = (), deletes: Sequence[Model] = ()) -> None:
    """Puts and deletes these items (any models), 25 to a request, the requests side by
    side; raises if any request failed (what the others wrote stays: callers write
    idempotently and retry)."""
    grouped: dict[type[Model], list[tuple[Model, bool]]] = defaultdict(list)
    for item in puts:
        grouped[type(item)].append((item, True))
    for item in deletes:
        grouped[type(item)].append((item, False))
    chunks = [group[i:i + ITEMS_PER_REQUEST] for group in grouped.values()
              for i in range(0, len(group), ITEMS_PER_REQUEST)]
    if len(chunks) == 1:
        _write(chunks[0])
    elif chunks:
        side_by_side(_write, chunks)


def _write(chunk: list[tuple[Model, bool]]) -> None:
    with type(chunk[0][0]).batch_write() as batch:
        for item, put in chunk:
            if put:
                batch.save(item)
            else:
                batch.delete(item)
