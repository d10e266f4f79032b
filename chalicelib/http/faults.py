"""What a request answers when something other than the client failed.

AWS throttling and transient faults (throttled DynamoDB calls and transactions, 5xx
answers of DynamoDB, SQS, SES or S3, lost connections) answer 503 with a retry hint: the
action's writes are one transaction or idempotent, so a retry is safe. Anything else is a
bug: 500 `INTERNAL_SERVER_ERROR`, logged with the request ID the client is told.
"""
from __future__ import annotations

import uuid

from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)

from chalicelib.http.errors import ApiError, InternalServerError, ServiceBusyError
from chalicelib.lib.log import logger

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


def error_for_exception(error: Exception) -> ApiError:
    """The client's answer for an exception a view raised; logs it."""
    if is_transient(error):
        logger.warning("AWS throttled or failed transiently; answering 503",
                       extra={"error": f"{type(error).__name__}: {error}"})
        return ServiceBusyError()
    request_id = logger.get_current_keys().get("request_id") or uuid.uuid4().hex
    logger.exception("internal server error", extra={"request_id": request_id})
    return InternalServerError(str(request_id))
