"""The push channel: API Gateway WebSocket routes ($connect, $default, $disconnect).

Connect: `wss://<url>?queue_id=<id>&last_event_id=<n>` with the API's Basic
`Authorization` header, or, from a browser (which cannot set headers on a WebSocket),
with the credentials as a subprotocol: `Sec-WebSocket-Protocol: teamchat.v1,
teamchat.basic.<base64url of "email:api_key">`, answered with `teamchat.v1` (the key never
goes in the URL, and is never echoed back). The connection then follows that queue (one connection per
queue: a newer one replaces an older one, which is closed). API Gateway cannot send
during $connect, so the client asks for what it has not seen:

    client -> {"op": "get_events", "last_event_id": n}
    server -> {"type": "events", "queue_id": ..., "events": [...]}   (ids > n, in order)

After that the server pushes each batch of new events in the same message shape, and a
heartbeat event at least every WEBSOCKET_HEARTBEAT_SECONDS. Errors are
{"type": "error", "result": "error", "code": ..., "msg": ...}.
"""
from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError, UnauthorizedError
from chalicelib.delivery import push
from chalicelib.delivery.connections import attach, forget, push_events
from chalicelib.delivery.queues import access_queue, acknowledge
from chalicelib.http.auth import authenticate
from chalicelib.http.params import parse_integer
from chalicelib.http.rate_limits import (
    authenticate_limited,
    limit_connection_message,
    limit_request,
    source_ip,
)
from chalicelib.models.events import EventQueue, WsConnection
from chalicelib.realtime.reader import fetch_events

MAX_MESSAGE_BYTES = 4096
# The subprotocol a browser asks for, and the prefix of the one that carries its
# credentials (a subprotocol must be an HTTP token: base64url without padding is one).
SUBPROTOCOL = "teamchat.v1"
CREDENTIALS_PREFIX = "teamchat.basic."
MAX_PROTOCOL_HEADER = 1024


def on_connect(raw: dict[str, Any]) -> dict[str, Any]:
    connection_id = raw["requestContext"]["connectionId"]
    headers = {k.lower(): v for k, v in (raw.get("headers") or {}).items()}
    params = raw.get("queryStringParameters") or {}
    try:
        authorization, answer_headers = _authorization(headers)
        # Limited by connection: connecting counts as a request, as does each message
        # the client sends; pushes and the time connected do not.
        caller = authenticate_limited(authorization, source_ip(raw["requestContext"]))
        limit_request(caller)
        queue = access_queue(caller.realm_id, caller.user_id, str(params.get("queue_id") or ""))
        last_event_id = _event_id(params.get("last_event_id", "-1"))
        acknowledge(queue, -1)   # extends its life; get_events acknowledges
        replaced = attach(queue, connection_id, last_event_id)
        _recheck_key(authorization, queue, connection_id, replaced)
    except ApiError as error:
        return {"statusCode": error.http_status, "body": json.dumps(error.to_dict())}
    if replaced:
        push.close(replaced)
    logger.info("websocket connected", extra={"queue_id": queue.queue_id})
    return {"statusCode": 200, **({"headers": answer_headers} if answer_headers else {})}


def _authorization(headers: dict[str, str]) -> tuple[str | None, dict[str, str]]:
    """The Basic credentials (the Authorization header, else the subprotocol that carries
    them) and the headers the handshake's answer needs: a client that offered
    subprotocols refuses an answer that selects none."""
    offered = [p.strip() for p in headers.get("sec-websocket-protocol", "")
               [:MAX_PROTOCOL_HEADER].split(",") if p.strip()]
    answer = {"Sec-WebSocket-Protocol": SUBPROTOCOL} if SUBPROTOCOL in offered else {}
    if headers.get("authorization"):
        return headers["authorization"], answer
    carried = [p[len(CREDENTIALS_PREFIX):] for p in offered if p.startswith(CREDENTIALS_PREFIX)]
    if not carried:
        return None, answer
    if not answer:
        raise ApiError(f"Credentials in a subprotocol need the {SUBPROTOCOL} subprotocol too.")
    try:
        decoded = base64.urlsafe_b64decode(carried[0] + "=" * (-len(carried[0]) % 4))
    except (binascii.Error, ValueError):
        raise UnauthorizedError("Malformed credentials subprotocol.") from None
    return "Basic " + base64.b64encode(decoded).decode(), answer


def _recheck_key(header: str | None, queue: EventQueue, connection_id: str,
                 replaced: str | None) -> None:
    """Authenticates again once attached: a key rotation that ran meanwhile may have
    looked for the queue's connection before this one was attached (actions/users/api_keys.py
    closes those it finds after deleting the keys), so this closes that gap."""
    try:
        authenticate(header)
    except ApiError:
        forget(queue, connection_id)
        if replaced:
            push.close(replaced)
        raise


def on_message(raw: dict[str, Any]) -> None:
    connection_id = raw["requestContext"]["connectionId"]
    connection = WsConnection.get_or_none(connection_id)
    if connection is None:   # not connected through $connect (or already cleaned up)
        push.close(connection_id)
        return
    try:
        limit_connection_message(connection.realm_id, connection.user_id)
        request = _parse(raw.get("body"))
        queue = access_queue(connection.realm_id, connection.user_id, connection.queue_id)
        if request.get("op") != "get_events":
            raise ApiError(f"Unknown op: {str(request.get('op'))[:40]!r}")
        after = _event_id(request.get("last_event_id", connection.last_event_id))
        events = fetch_events(queue, after)
        if events:
            push_events(queue, connection_id, events)
        else:
            _send_empty(queue, connection_id)
    except ApiError as error:
        if not push.send(connection_id, push.error_message(error.code, error.msg)):
            forget(None, connection_id)


def _send_empty(queue: EventQueue, connection_id: str) -> None:
    """Answers a fetch that finds nothing new, so the client knows it is up to date."""
    if not push.send(connection_id, push.events_message(queue.queue_id, [])):
        forget(queue, connection_id)


def on_disconnect(raw: dict[str, Any]) -> None:
    connection_id = raw["requestContext"]["connectionId"]
    connection = WsConnection.get_or_none(connection_id)
    if connection is None:
        return
    forget(EventQueue.get_or_none(connection.queue_id), connection_id)


def _parse(body: Any) -> dict[str, Any]:
    if not isinstance(body, str) or len(body.encode()) > MAX_MESSAGE_BYTES:
        raise ApiError(f"A message must be a JSON object of at most {MAX_MESSAGE_BYTES} bytes.")
    try:
        request = json.loads(body)
    except ValueError:
        raise ApiError("A message must be a JSON object.") from None
    if not isinstance(request, dict):
        raise ApiError("A message must be a JSON object.")
    return request


def _event_id(value: Any) -> int:
    return max(-1, parse_integer("last_event_id", value))
