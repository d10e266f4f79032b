"""What a request answers when something other than the client failed.

AWS throttling and transient faults (throttled DynamoDB calls and transactions, 5xx
answers of DynamoDB, SQS, SES or S3, lost connections) answer 503 with a retry hint: the
action's writes are one transaction or idempotent, so a retry is safe. No credentials at
all (a server started without a backend, such as `chalice local` with no local stack to
use) answers 503 saying so. Anything else is a bug: 500 `INTERNAL_SERVER_ERROR`, logged
with the request ID the client is told.
"""
from __future__ import annotations

import uuid

from chalicelib.aws.aws_errors import is_missing_credentials, is_transient
from chalicelib.aws.log import logger
from chalicelib.core.errors import (
    ApiError,
    InternalServerError,
    NoBackendError,
    ServiceBusyError,
)


def error_for_exception(error: Exception) -> ApiError:
    """The client's answer for an exception a view raised; logs it."""
    if is_missing_credentials(error):
        logger.error("no AWS credentials", extra={"error": f"{type(error).__name__}: {error}"})
        return NoBackendError()
    if is_transient(error):
        logger.warning("AWS throttled or failed transiently; answering 503",
                       extra={"error": f"{type(error).__name__}: {error}"})
        return ServiceBusyError()
    request_id = logger.get_current_keys().get("request_id") or uuid.uuid4().hex
    logger.exception("internal server error", extra={"request_id": request_id})
    return InternalServerError(str(request_id))
