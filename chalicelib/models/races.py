"""One way to retry a read-check-write that lost a race to a concurrent writer."""
from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar, overload

from pynamodb.exceptions import DeleteError, PutError, TransactWriteError, UpdateError

from chalicelib.core.errors import ConflictError
from chalicelib.models.base import is_condition_failure, is_write_condition_failure

T = TypeVar("T")
DEFAULT_ATTEMPTS = 5
MAX_BACKOFF_STEPS = 10


class LostRace(Exception):
    """Raised by an attempt whose conditional write found the item changed since it read it."""


def is_lost_race(error: Exception) -> bool:
    """Whether a write failed because another writer came first: `LostRace`, a transaction
    cancelled on a condition, or a single put, update or delete whose condition failed
    (not throttling or a fault, which must not be mistaken for one)."""
    if isinstance(error, TransactWriteError):
        return is_condition_failure(error)
    if isinstance(error, PutError | UpdateError | DeleteError):
        return is_write_condition_failure(error)
    return isinstance(error, LostRace)


@overload
def retry_lost_races(attempt: Callable[[], T], *, conflict: str,
                     attempts: int = DEFAULT_ATTEMPTS, backoff: float = 0.0) -> T: ...


@overload
def retry_lost_races(attempt: Callable[[], T], *, conflict: None,
                     attempts: int = DEFAULT_ATTEMPTS, backoff: float = 0.0) -> T | None: ...


def retry_lost_races(attempt: Callable[[], T], *, conflict: str | None,
                     attempts: int = DEFAULT_ATTEMPTS, backoff: float = 0.0) -> T | None:
    """Runs `attempt` (read, decide, write with conditions on what was read) until it does
    not lose a race (`is_lost_race`): then it reads again. Other failures propagate.

    After `attempts` lost races the client gets a 409 `conflict` and may retry; with
    `conflict=None` the writers that won are enough, and the result is None. `backoff`
    spreads out writers that keep colliding: before the nth retry, a random pause of up
    to n × backoff seconds (n at most MAX_BACKOFF_STEPS)."""
    for tried in range(attempts):
        if tried and backoff:
            time.sleep(random.uniform(  # nosec B311 # jitter, not a secret
                0, backoff * min(tried, MAX_BACKOFF_STEPS)))
        try:
            return attempt()
        except (LostRace, TransactWriteError, PutError, UpdateError, DeleteError) as error:
            if not is_lost_race(error):
                raise
    if conflict is None:
        return None
    raise ConflictError(conflict)
