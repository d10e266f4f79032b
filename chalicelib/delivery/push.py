"""Sending to the push channel's WebSocket connections (API Gateway's management API).

On AWS the endpoint is the WebSocket API's management URL (WEBSOCKET_MANAGEMENT_URL,
set by the merge template); the local stack serves the same API beside its WebSocket
endpoint (infra/local/websocket_server.py), so both run this code.
"""
from __future__ import annotations

import functools
import json
from typing import Any, Literal, TypedDict

import boto3
from botocore.exceptions import ClientError

from chalicelib import config
from chalicelib.aws.client_config import SHARED_POOL_CONNECTIONS, client_config
from chalicelib.aws.log import logger

MAX_MESSAGE_BYTES = 120_000   # API Gateway refuses WebSocket frames over 128 KB


class EventsMessage(TypedDict):
    """What the push channel sends: events as GET /events returns them, ids ascending."""

    type: Literal["events"]
    queue_id: str
    events: list[dict[str, Any]]


class ErrorMessage(TypedDict):
    """The push channel's answer to a message it cannot serve (the API's error envelope)."""

    type: Literal["error"]
    result: Literal["error"]
    code: str
    msg: str


@functools.lru_cache(maxsize=4)
def _client(endpoint_url: str) -> Any:
    # Called from the fan-out's append threads at once.
    return boto3.client("apigatewaymanagementapi", endpoint_url=endpoint_url,
                        region_name=config.region(),
                        config=client_config(max_pool_connections=SHARED_POOL_CONNECTIONS))


def enabled() -> bool:
    return bool(config.websocket_management_url())


def send(connection_id: str, message: EventsMessage | ErrorMessage) -> bool:
    """Sends one JSON message; False if the connection is gone (the caller cleans up)."""
    data = json.dumps(message, separators=(",", ":")).encode()
    try:
        _client(config.websocket_management_url()).post_to_connection(
            ConnectionId=connection_id, Data=data)
        return True
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("GoneException", "410"):
            return False
        raise


def send_events(connection_id: str, queue_id: str, events: list[dict[str, Any]]) -> bool:
    """Sends events as GET /events returns them, split to fit API Gateway's frame limit."""
    chunk: list[dict[str, Any]] = []
    size = 0
    for event in events:
        event_size = len(json.dumps(event))
        if chunk and size + event_size > MAX_MESSAGE_BYTES:
            if not send(connection_id, events_message(queue_id, chunk)):
                return False
            chunk, size = [], 0
        chunk.append(event)
        size += event_size
    return send(connection_id, events_message(queue_id, chunk)) if chunk else True


def events_message(queue_id: str, events: list[dict[str, Any]]) -> EventsMessage:
    message: EventsMessage = {"type": "events", "queue_id": queue_id, "events": events}
    return message


def error_message(code: str, msg: str) -> ErrorMessage:
    message: ErrorMessage = {"type": "error", "result": "error", "code": code, "msg": msg}
    return message


def close(connection_id: str) -> None:
    """Closes a connection (a newer one took its queue over); gone ones are fine."""
    try:
        _client(config.websocket_management_url()).delete_connection(
            ConnectionId=connection_id)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") not in ("GoneException", "410"):
            logger.warning("closing a connection failed", extra={"error": str(error)})
