"""The push channel's three functions: connect, message, disconnect."""
from __future__ import annotations

from typing import Any

from chalicelib.aws.cold_start import handler_imports

with handler_imports():
    from chalicelib.aws.tracing import traced
    from chalicelib.realtime import websocket

# What API Gateway needs from a WebSocket route that has nothing to say.
ACCEPTED = {"statusCode": 200}


@traced
def connect(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return websocket.on_connect(event)


@traced
def message(event: dict[str, Any], context: Any) -> dict[str, Any]:
    websocket.on_message(event)
    return ACCEPTED


@traced
def disconnect(event: dict[str, Any], context: Any) -> dict[str, Any]:
    websocket.on_disconnect(event)
    return ACCEPTED
