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


def raw_exchange(port: int, request: bytes) -> bytes:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


def test_headers_are_read_as_the_standard_library_reads_them():
    seen: list[dict[str, Any]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append({k: v for k, v in environ.items() if k.startswith("HTTP_")}
                    | {"body": environ["wsgi.input"].read(), "path": environ["PATH_INFO"]})
        start_response("200 OK", [])
        return [b"ok"]

    server, port = serve(app)
    try:
        # Repeated fields are joined, names match in any case, and the client's
        # "Connection: close" ends the connection after the answer.
        answer = raw_exchange(port, b"POST //x HTTP/1.1\r\nHost: h\r\nX-Tag: a\r\n"
                                    b"x-tag: b\r\ncontent-LENGTH: 3\r\n"
                                    b"Connection: close\r\n\r\nabc")
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"ok")
        assert seen[-1]["HTTP_X_TAG"] == "a,b" and seen[-1]["body"] == b"abc"
        assert seen[-1]["path"] == "/x"   # never a scheme-relative path
        # A client that waits for "100 Continue" gets it before sending its body.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.putrequest("POST", "/expect")
        connection.putheader("Content-Length", "2")
        connection.putheader("Expect", "100-continue")
        connection.endheaders()
        assert connection.sock.recv(100).startswith(b"HTTP/1.1 100")
        connection.sock.sendall(b"hi")
        response = connection.getresponse()
        assert (response.status, response.read()) == (200, b"ok")
        connection.close()
        assert seen[-1]["body"] == b"hi"
        # Malformed requests are refused without reaching the app.
        before = len(seen)
        assert b"400" in raw_exchange(port, b"NONSENSE\r\n\r\n")   # an HTTP/0.9 answer
        assert raw_exchange(port, b"GET / HTTP/1.1\r\nno colon here\r\n\r\n").startswith(
            b"HTTP/1.1 400")
        many = b"".join(b"X-%d: v\r\n" % n for n in range(101))
        assert raw_exchange(port, b"GET / HTTP/1.1\r\n" + many + b"\r\n").startswith(
            b"HTTP/1.1 431")
        assert len(seen) == before
    finally:
        server.shutdown()
        server.server_close()
