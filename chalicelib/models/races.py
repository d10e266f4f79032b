"""One way to retry a read-check-write that lost a race to a concurrent writer."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pynamodb.exceptions import TransactWriteError

from chalicelib.core.errors import ConflictError
from chalicelib.models.base import is_condition_failure

T = TypeVar("T")
DEFAULT_ATTEMPTS = 5


class LostRace(Exception):
    """Raised by an attempt whose conditional write found the item changed since it read it."""


def retry_lost_races(attempt: Callable[[], T], *, conflict: str,
                     attempts: int = DEFAULT_ATTEMPTS) -> T:
    """Runs `attempt` (read, decide, write with conditions on what was read) until it does
    not lose a race. A transaction cancelled on a condition, or `LostRace`, means another
    writer came first: read again. Other failures propagate. After `attempts` lost races
    the client gets a 409 `conflict` and may retry."""
    for _ in range(attempts):
        try:
            return attempt()
        except LostRace:
            continue
        except TransactWriteError as error:
            if not is_condition_failure(error):
                raise
    raise ConflictError(conflict)
