"""A scheduled message's one-time schedule invokes this at its time."""
from __future__ import annotations

from typing import Any

from chalicelib.aws.cold_start import handler_imports

with handler_imports():
    from chalicelib.actions.messages.scheduled_messages import deliver_scheduled_message
    from chalicelib.aws.tracing import traced


@traced
def handler(event: dict[str, Any], context: Any) -> str:
    return deliver_scheduled_message(event)
