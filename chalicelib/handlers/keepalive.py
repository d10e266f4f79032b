"""The push channel's heartbeats and the wake queues' cleanup, every five minutes."""
from __future__ import annotations

from typing import Any

from chalicelib.events.keepalive import run_keepalive


def handler(event: dict[str, Any], context: Any) -> None:
    run_keepalive()
