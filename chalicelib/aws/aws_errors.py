"""Which AWS errors are transient: throttling, and failures on AWS's side.

A call that failed so may succeed when made again; the API answers such failures with
503 and a retry hint, and derived writes retry them a few times themselves.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)

from chalicelib.aws.log import logger

T = TypeVar("T")

# Error codes AWS services use for "too fast" and "try again": DynamoDB, SQS, SES, S3.
RETRYABLE_CODES = frozenset({
    "ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded",
    "Throttling", "ThrottlingError", "RequestThrottled", "SlowDown", "TooManyRequestsException",
    "InternalServerError", "InternalError", "InternalFailure", "ServiceUnavailable",
    "ServiceUnavailableException", "TransactionConflict", "TransactionInProgressException",
})
_CONNECTION_ERRORS = (EndpointConnectionError, ConnectionClosedError, ConnectTimeoutError,
                      ReadTimeoutError)


def _causes(error: BaseException) -> list[BaseException]:
    """The error and what it wraps (PynamoDB keeps botocore's error as `cause`)."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain and len(chain) < 10:
        chain.append(current)
        current = getattr(current, "cause", None) or current.__cause__
    return chain


def is_transient(error: BaseException) -> bool:
    """Whether AWS asked us to slow down or failed on its side (retrying may succeed)."""
    for cause in _causes(error):
        if isinstance(cause, _CONNECTION_ERRORS):
            return True
        reasons = getattr(cause, "cancellation_reasons", None) or []
        if any(reason is not None and reason.code in RETRYABLE_CODES for reason in reasons):
            return True
        if isinstance(cause, ClientError):
            response = cause.response
            if response.get("Error", {}).get("Code") in RETRYABLE_CODES:
                return True
            if any(reason.get("Code") in RETRYABLE_CODES
                   for reason in response.get("CancellationReasons") or []):
                return True
            if response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) >= 500:
                return True
    return False


def is_missing_credentials(error: BaseException) -> bool:
    """Whether botocore found no credentials at all (nothing was sent)."""
    return any(isinstance(cause, NoCredentialsError) for cause in _causes(error))


def retrying_transient(step: Callable[[], T], attempts: int = 3,
                       base_delay: float = 0.02) -> T:
    """Runs an idempotent step, again (with jittered backoff) while it fails transiently."""
    for attempt in range(attempts):
        try:
            return step()
        except Exception as error:
            if attempt == attempts - 1 or not is_transient(error):
                raise
            # Jitter spreads retries out; nothing about it needs to be unpredictable.
            time.sleep(random.uniform(0, base_delay * 2**attempt))  # nosec B311 # jitter
    raise AssertionError("unreachable")


def best_effort(step: Callable[[], object], what: str) -> None:
    """A derived write after a change committed: retried while transient, then logged.
    The change stands either way, so its request must not answer as if it had failed
    (a client retrying a send would send it twice)."""
    try:
        retrying_transient(step)
    except Exception as error:
        if not is_transient(error):
            raise
        logger.warning("derived write failed after retries", extra={
            "what": what, "error": f"{type(error).__name__}: {error}"})
