"""SES bounces and complaints, delivered by SNS."""
from __future__ import annotations

from typing import Any

from chalicelib.aws.cold_start import handler_imports

with handler_imports():
    from chalicelib.aws.tracing import traced
    from chalicelib.notifications.bounces import record_mail_event


@traced
def handler(event: dict[str, Any], context: Any) -> None:
    for record in event.get("Records", []):
        record_mail_event(record["Sns"]["Message"])
