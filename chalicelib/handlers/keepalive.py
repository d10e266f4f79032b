"""The push channel's heartbeats and the wake queues' cleanup, every five minutes."""
from __future__ import annotations

from typing import Any

from chalicelib.aws.cold_start import handler_imports

with handler_imports():
    from chalicelib.aws.tracing import traced
    from chalicelib.realtime.keepalive import run_keepalive


@traced
def handler(event: dict[str, Any], context: Any) -> None:
    run_keepalive()
