"""Every local HTTP server that writes an answer's headers and body apart sends them
without waiting for the client's ACK (Nagle's algorithm met the client's delayed ACK:
40 ms added to every API request and every push of the local stack)."""
from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from infra.local import client_proxy, http_server, keepalive_http, websocket_server


@pytest.mark.parametrize("handler", [
    http_server._RequestHandler,
    keepalive_http.KeepAliveHandler,
    client_proxy.make_handler("http://127.0.0.1:1"),
    websocket_server._management_handler(None),  # type: ignore[arg-type]
], ids=["api", "database", "client proxy", "push management"])
def test_local_servers_send_without_nagle_s_delay(handler: type[BaseHTTPRequestHandler]):
    assert handler.disable_nagle_algorithm is True
    # AND the standard library applies it to each accepted connection
    seen: list[int] = []

    class Probe(handler):  # type: ignore[valid-type, misc]
        def __init__(self, *args: object) -> None:   # Chalice's needs its app: not here
            BaseHTTPRequestHandler.__init__(self, *args)  # type: ignore[arg-type]

        def setup(self) -> None:
            super().setup()
            seen.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

        def handle(self) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Probe)
    threading.Thread(target=server.handle_request, daemon=True).start()
    try:
        socket.create_connection(server.server_address[:2], timeout=5).close()
        deadline = time.monotonic() + 5
        while not seen and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        server.server_close()
    assert seen and seen[0] != 0
