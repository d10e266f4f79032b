"""The notification queue's function (missed-message email and mobile push)."""
from __future__ import annotations

from typing import Any

from chalicelib.aws.cold_start import handler_imports

with handler_imports():
    from chalicelib.aws.partial_batch import PartialBatchResponse
    from chalicelib.aws.tracing import traced
    from chalicelib.notifications.notifier import handle_notifier_batch


@traced
def handler(event: dict[str, Any], context: Any) -> PartialBatchResponse:
    return handle_notifier_batch(event, context)
