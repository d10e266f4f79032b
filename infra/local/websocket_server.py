"""The push channel locally: a WebSocket endpoint and API Gateway's management API.

`chalice local` serves no WebSockets, so the local stack does what API Gateway does:
it accepts connections (calling the app's $connect handler before the handshake
completes, so a refusal is an HTTP error as on AWS), hands each message to the $default
handler and each close to $disconnect, and serves `POST/DELETE /@connections/{id}` on a
second port, the API the app's `delivery/push.py` calls through boto3 on AWS too. A
`Sec-WebSocket-Protocol` header in the $connect handler's answer selects the subprotocol,
as API Gateway's Lambda proxy integration does.
"""
from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve

from chalicelib.aws.log import logger
from infra.local.pollers import LambdaContext

STAGE = "local"


@dataclass
class _Client:
    socket: ServerConnection
    lock: threading.Lock = field(default_factory=threading.Lock)


class LocalWebsocketGateway:
    """What API Gateway's WebSocket API does for the app, on two loopback ports."""

    def __init__(self, app: Any, host: str, port: int, management_port: int) -> None:
        self.app, self.host, self.port = app, host, port
        self.management_port = management_port
        self.clients: dict[str, _Client] = {}
        self.lock = threading.Lock()
        self.server: Server | None = None
        self.management: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    @property
    def management_url(self) -> str:
        return f"http://{self.host}:{self.management_port}"

    def start(self) -> None:
        self.server = serve(self._session, self.host, self.port,
                            process_request=self._connect,
                            select_subprotocol=self._subprotocol, compression=None)
        threading.Thread(target=self.server.serve_forever, name="websocket-server",
                         daemon=True).start()
        self.management = ThreadingHTTPServer((self.host, self.management_port),
                                              _management_handler(self))
        self.management.daemon_threads = True
        threading.Thread(target=self.management.serve_forever, name="websocket-management",
                         daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
        if self.management is not None:
            self.management.shutdown()

    # ---- the gateway side: connect, messages, disconnect ---------------------------

    def _event(self, route: str, connection_id: str, **extra: Any) -> dict[str, Any]:
        return {"requestContext": {
            "routeKey": route, "eventType": route.strip("$").upper(),
            "connectionId": connection_id, "domainName": f"{self.host}:{self.port}",
            "stage": STAGE, "apiId": "local", "requestTimeEpoch": int(time.time() * 1000)},
            "isBase64Encoded": False, **extra}

    def _call(self, name: str, event: dict[str, Any]) -> Any:
        return self.app.handler_map[name](event, LambdaContext(name))

    def _connect(self, socket: ServerConnection, request: Request) -> Response | None:
        connection_id = secrets.token_urlsafe(12)
        query = dict(parse_qsl(urlsplit(request.path).query))
        headers = dict(request.headers.raw_items())
        try:
            answer = self._call("ws_connect", self._event(
                "$connect", connection_id, headers=headers,
                queryStringParameters=query or None))
        except Exception:  # noqa: BLE001 - API Gateway answers 500 too
            logger.exception("websocket connect handler failed")
            answer = {"statusCode": 500, "body": ""}
        status = int((answer or {}).get("statusCode", 200))
        if status != 200:
            return socket.respond(HTTPStatus(status), str(answer.get("body") or ""))
        socket.connection_id = connection_id  # type: ignore[attr-defined]
        socket.subprotocol_answer = (  # type: ignore[attr-defined]
            (answer or {}).get("headers") or {}).get("Sec-WebSocket-Protocol")
        with self.lock:
            self.clients[connection_id] = _Client(socket)
        return None

    @staticmethod
    def _subprotocol(socket: ServerConnection, offered: Any) -> str | None:
        chosen: str | None = getattr(socket, "subprotocol_answer", None)
        return chosen if chosen in offered else None

    def _session(self, socket: ServerConnection) -> None:
        connection_id: str = socket.connection_id  # type: ignore[attr-defined]
        try:
            for message in socket:
                body = message if isinstance(message, str) else message.decode()
                try:
                    self._call("ws_message", self._event("$default", connection_id, body=body))
                except Exception:  # noqa: BLE001 - one message's failure keeps the socket
                    logger.exception("websocket message handler failed")
        except ConnectionClosed:
            pass
        finally:
            with self.lock:
                self.clients.pop(connection_id, None)
            try:
                self._call("ws_disconnect", self._event("$disconnect", connection_id))
            except Exception:  # noqa: BLE001 - as on AWS, disconnect is best effort
                logger.exception("websocket disconnect handler failed")

    # ---- the management API ---------------------------------------------------------

    def post(self, connection_id: str, data: bytes) -> bool:
        with self.lock:
            client = self.clients.get(connection_id)
        if client is None:
            return False
        try:
            with client.lock:
                client.socket.send(data.decode())
            return True
        except ConnectionClosed:
            return False

    def close(self, connection_id: str) -> bool:
        with self.lock:
            client = self.clients.get(connection_id)
        if client is None:
            return False
        client.socket.close()
        return True


def _management_handler(gateway: LocalWebsocketGateway) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # Headers and body go out in two writes: without this the body waits for the
        # client's delayed ACK (40 ms on every push).
        disable_nagle_algorithm = True

        def _connection_id(self) -> str | None:
            path = urlsplit(self.path).path
            prefix = "/@connections/"
            return unquote(path[len(prefix):]) if path.startswith(prefix) else None

        def _answer(self, status: int, body: dict[str, Any] | None = None) -> None:
            data = b"" if status == 204 else json.dumps(body or {}).encode()
            self.send_response(status)
            if status == 410:   # what botocore reads as GoneException
                self.send_header("x-amzn-ErrorType", "GoneException")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            connection_id = self._connection_id()
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if connection_id is None:
                self._answer(404, {"message": "Not Found"})
            elif gateway.post(connection_id, data):
                self._answer(200)
            else:
                self._answer(410, {"message": "Gone"})

        def do_DELETE(self) -> None:
            connection_id = self._connection_id()
            if connection_id is not None and gateway.close(connection_id):
                self._answer(204)
            else:
                self._answer(410, {"message": "Gone"})

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet, like the API server."""

    return Handler
