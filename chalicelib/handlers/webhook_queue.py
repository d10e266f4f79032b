"""The outgoing-webhook queue's function."""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse

from chalicelib.events.webhook_worker import handle_webhook_batch
from chalicelib.lib.tracing import traced


@traced
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return handle_webhook_batch(event, context)
