"""A request's deadline: work on a request stops once its time is spent.

The HTTP adapter opens a deadline for each request (`request_deadline`); every read of
stored data checks it (a botocore hook on DynamoDB's read operations, installed on the
DynamoDB session, aws/dynamodb_session.py), as do loops that decide their own length
(`check_deadline`). A request past its deadline answers a clean error and does no more
work, so no request keeps a process busy after the client stopped waiting. Writes are
never stopped half way: the hook checks reads only, and every action reads before it
writes. Outside a request (the fan-out, workers) there is no deadline.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError

# The DynamoDB operations that read stored data: where a long request spends its time.
READ_OPERATIONS = ("GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems")

_deadline: ContextVar[tuple[float, float] | None] = ContextVar("request_deadline",
                                                               default=None)


class RequestTooLongError(ApiError):
    """The request needed more time than a request has (a client can ask for less)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"This request could not be answered within its time limit "
                         f"({seconds:g} s); ask for less at once (a narrower narrow, or "
                         "fewer messages).")


@contextmanager
def request_deadline(seconds: float) -> Iterator[None]:
    """Work in the block must end within `seconds` (nested blocks keep the earlier end)."""
    current = _deadline.get()
    ends = time.monotonic() + seconds
    token = _deadline.set((ends, seconds) if current is None or ends < current[0]
                          else current)
    try:
        yield
    finally:
        _deadline.reset(token)


def check_deadline() -> None:
    """Raises RequestTooLongError once the current request's time is spent."""
    current = _deadline.get()
    if current is not None and time.monotonic() > current[0]:
        logger.warning("request stopped at its deadline", extra={"seconds": current[1]})
        raise RequestTooLongError(current[1])


def _before_read(**_: Any) -> None:
    check_deadline()


def install_read_deadline(session: Any) -> None:
    """Every DynamoDB read of clients made from this botocore session checks the
    deadline first."""
    for operation in READ_OPERATIONS:
        session.register(f"before-call.dynamodb.{operation}", _before_read,
                         unique_id=f"teamchat-deadline-{operation}")
