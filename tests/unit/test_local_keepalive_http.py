"""The local database's HTTP server keeps a client's connection open from request to
request (infra/local/keepalive_http.py), and hands the app what WSGI promises."""
from __future__ import annotations

import http.client
import threading
from typing import Any

from infra.local.keepalive_http import make_server


def serve(app: Any) -> tuple[Any, int]:
    server = make_server("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def test_requests_share_one_connection_and_bodies_arrive_whole():
    seen: list[dict[str, Any]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        body = environ["wsgi.input"].read()
        seen.append({"port": environ["REMOTE_PORT"], "path": environ["PATH_INFO"],
                     "query": environ["QUERY_STRING"], "body": body,
                     "target": environ.get("HTTP_X_AMZ_TARGET"),
                     "type": environ.get("CONTENT_TYPE")})
        start_response("201 Created", [("Content-Type", "text/plain"),
                                       ("Connection", "close")])   # the server's to decide
        return [b"got ", body]

    server, port = serve(app)
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        answers = []
        for n in range(3):
            connection.request("POST", f"/a%20b?n={n}", body=f"item {n}".encode(), headers={
                "X-Amz-Target": "DynamoDB_20120810.GetItem", "Content-Type": "application/json"})
            response = connection.getresponse()
            answers.append((response.status, response.read()))
        # a chunked body, and a HEAD (no body in the answer)
        connection.request("PUT", "/chunked", body=iter([b"ab", b"cd"]),
                           encode_chunked=True)
        chunked = connection.getresponse()
        assert (chunked.status, chunked.read()) == (201, b"got abcd")
        connection.request("HEAD", "/head")
        head = connection.getresponse()
        assert head.status == 201 and head.read() == b""
        assert head.getheader("Content-Length") == "4"
        connection.close()
    finally:
        server.shutdown()
        server.server_close()
    assert answers == [(201, f"got item {n}".encode()) for n in range(3)]
    assert len({s["port"] for s in seen}) == 1   # one connection for all five
    assert seen[0] == {"port": seen[0]["port"], "path": "/a b", "query": "n=0",
                       "body": b"item 0", "target": "DynamoDB_20120810.GetItem",
                       "type": "application/json"}
