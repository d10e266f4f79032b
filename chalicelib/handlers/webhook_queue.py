"""The outgoing-webhook queue's function."""
from __future__ import annotations

from typing import Any

from chalicelib.aws.cold_start import handler_imports

with handler_imports():
    from chalicelib.aws.partial_batch import PartialBatchResponse
    from chalicelib.aws.tracing import traced
    from chalicelib.webhooks.worker import handle_webhook_batch


@traced
def handler(event: dict[str, Any], context: Any) -> PartialBatchResponse:
    return handle_webhook_batch(event, context)
