"""Serves the Chalice app over HTTP the way API Gateway would, with our 404 envelope, and
the web client's files at `/` as CloudFront does on AWS (infra/local/web_static.py)."""
from __future__ import annotations

import json
import threading
from typing import Any

from chalice.config import Config
from chalice.local import (
    ChaliceRequestHandler,
    CustomLocalChalice,
    ForbiddenError,
    LocalChalice,
    LocalDevServer,
    LocalGatewayException,
    ThreadedHTTPServer,
)

from infra.local import object_links, stage_meter, web_static
from infra.local.environment import REPO_ROOT

_NOT_FOUND = json.dumps({"result": "error", "msg": "Endpoint not found",
                         "code": "NOT_FOUND"}).encode()


class _RequestHandler(ChaliceRequestHandler):
    """Answers unknown routes with a 404 envelope (on AWS: the gateway response)."""

    # Chalice writes an answer's headers and its body apart: with Nagle's algorithm the
    # body waited for the client's delayed ACK of the headers, 40 ms on every request.
    disable_nagle_algorithm = True

    def _send_error_response(self, error: LocalGatewayException) -> None:
        # Without authorizers, Chalice raises ForbiddenError only for unknown routes.
        if isinstance(error, ForbiddenError):
            self._send_http_response(404, {"Content-Type": "application/json"}, _NOT_FOUND)
            return
        super()._send_error_response(error)

    def _send_http_response(self, code: int, headers: Any, body: Any) -> None:
        # The app's answers say nosniff themselves (http/middleware.py); the gateway's
        # own (an unknown path, a body too large) do as API Gateway's do on AWS.
        super()._send_http_response(code, {**headers, "X-Content-Type-Options": "nosniff"},
                                    body)

    def _generic_handle(self) -> None:
        if object_links.serves(self.command, self.path):
            object_links.forward(self)   # a link to a stored file (an export, an upload)
            return
        with stage_meter.stage(_stage_of(self.command, self.path)):
            super()._generic_handle()

    # The methods Chalice's handler serves, through this class's _generic_handle (its
    # own aliases name its own). Methods API Gateway would not route reach the app too,
    # which answers 405 for them (http/method_not_allowed.py) instead of http.server's 501.
    do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _generic_handle
    do_TRACE = do_CONNECT = _generic_handle

    def do_GET(self) -> None:
        # Links to stored files first (under the bucket's name), then the web client's
        # files (every path the app does not serve), then the app.
        if not object_links.serves(self.command, self.path) and \
                web_static.is_client_path(self.path):
            self._send_client_file()
        else:
            self._generic_handle()

    def do_HEAD(self) -> None:
        self.do_GET()

    def _send_client_file(self) -> None:
        status, headers, body = web_static.answer(self.path,
                                                  self.headers.get("Accept-Encoding", ""))
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """The app logs each request itself (structured); stay quiet here."""


def _stage_of(method: str, path: str) -> str:
    """A request's stage for the load bench's meter (infra/local/stage_meter.py)."""
    route = path.split("?", 1)[0]
    if method == "POST" and route == "/api/v1/messages":
        return "send"
    if method == "GET" and route == "/api/v1/events":
        return "read"
    return "other API"


class _Server(ThreadedHTTPServer):
    # Each request is a new connection (HTTP/1.0): with dozens of clients the default
    # backlog of 5 refuses connections under load.
    request_queue_size = 128
    # A long-poll still waiting must not keep a stopping stack alive.
    daemon_threads = True


def chalice_config(stage: str = "dev") -> Config:
    config_from_disk = json.loads((REPO_ROOT / ".chalice" / "config.json").read_text())
    return Config.create(chalice_stage=stage, app_name=config_from_disk["app_name"],
                         project_dir=str(REPO_ROOT), config_from_disk=config_from_disk)


def start_http_server(app: Any, host: str, port: int) -> LocalDevServer:
    CustomLocalChalice.__bases__ = (LocalChalice, app.__class__)
    app.__class__ = CustomLocalChalice
    server = LocalDevServer(app, chalice_config(), host, port, handler_cls=_RequestHandler,
                            server_cls=_Server)
    threading.Thread(target=server.server.serve_forever, name="http-server",
                     daemon=True).start()
    return server
