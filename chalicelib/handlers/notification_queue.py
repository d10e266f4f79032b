"""The notification queue's function (missed-message email and mobile push)."""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse

from chalicelib.lib.tracing import traced
from chalicelib.notifications.notifier import handle_notifier_batch


@traced
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return handle_notifier_batch(event, context)
