"""An HTTP/1.1 server for a WSGI app that keeps each client's connection open.

Werkzeug's development server (what moto's `ThreadedMotoServer` runs) closes the
connection after every response, so each AWS call of the local stack paid for a new TCP
connection, a DNS lookup in the client and a new thread in the database process: under
`make load` that was a fifth of the database's time and a tenth of the workers'. Here a
connection serves request after request on one thread, as botocore's pooled connections
expect. Bodies are read by Content-Length (or chunked), and each answer goes out as one
write with its Content-Length (two writes would wait on delayed ACKs).
"""
from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

WsgiApp = Callable[[dict[str, Any], Any], Iterable[bytes]]
# Headers the server sets itself: the answer is always sent whole, with its length.
_OWN_HEADERS = {"content-length", "transfer-encoding", "connection", "date", "server"}
_MAX_LINE = 65536    # as http.client: a longer header line is refused
_MAX_HEADERS = 100


class KeepAliveHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    app: WsgiApp

    def handle_request(self) -> None:
        body = self._body()
        status_line: list[Any] = []
        chunks: list[bytes] = []

        def start_response(status: str, headers: list[tuple[str, str]],
                           exc_info: Any = None) -> Callable[[bytes], None]:
            del exc_info
            status_line[:] = [status, headers]
            return chunks.append

        result = self.app(self._environ(body), start_response)
        try:
            chunks.extend(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        payload = b"".join(chunks)
        status, headers = status_line
        code, _, reason = status.partition(" ")
        self.send_response(int(code), reason)
        for name, value in headers:
            if name.lower() not in _OWN_HEADERS:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers_with(b"" if self.command == "HEAD" else payload)

    def parse_request(self) -> bool:
        """The request line and headers, as the base class reads them, without the
        email package's header parser (a tenth of the database's time under load)."""
        self.command = None  # type: ignore[assignment]
        self.request_version = self.default_request_version
        self.close_connection = True
        raw: bytes = self.raw_requestline  # type: ignore[attr-defined]
        self.requestline = str(raw, "iso-8859-1").rstrip("\r\n")
        words = self.requestline.split()
        if len(words) != 3 or not words[2].startswith("HTTP/1."):
            self.send_error(HTTPStatus.BAD_REQUEST, f"Bad request line {self.requestline!r}")
            return False
        self.command, self.path, self.request_version = words
        if self.path.startswith("//"):   # as the base class: never a scheme-relative URL
            self.path = "/" + self.path.lstrip("/")
        headers = Headers()
        while True:
            line = self.rfile.readline(_MAX_LINE + 1)
            if len(line) > _MAX_LINE or len(headers) >= _MAX_HEADERS:
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
                return False
            if line in (b"\r\n", b"\n", b""):
                break
            name, colon, value = str(line, "iso-8859-1").partition(":")
            if not colon or not name.strip():
                self.send_error(HTTPStatus.BAD_REQUEST, "Bad header line")
                return False
            headers.append(name.strip(), value.strip())
        self.headers = headers  # type: ignore[assignment]
        connection = headers.get("Connection", "").lower()
        self.close_connection = connection == "close" or (
            self.request_version == "HTTP/1.0" and connection != "keep-alive")
        if headers.get("Expect", "").lower() == "100-continue":
            return self.handle_expect_100()
        return True

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = handle_request

    def end_headers_with(self, payload: bytes) -> None:
        """The headers and the body in one write."""
        self._headers_buffer.append(b"\r\n" + payload)  # type: ignore[attr-defined]
        self.flush_headers()

    def _body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length is not None:
            return self.rfile.read(int(length))
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass   # trailers
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        return b""

    def _environ(self, body: bytes) -> dict[str, Any]:
        url = urlsplit(self.path)
        host, port = self.server.server_address[:2]
        environ: dict[str, Any] = {
            "REQUEST_METHOD": self.command,
            "SCRIPT_NAME": "",
            # WSGI's str-of-bytes form, as werkzeug gives it
            "PATH_INFO": unquote(url.path, encoding="latin-1"),
            "QUERY_STRING": url.query,
            "REQUEST_URI": self.path,
            "RAW_URI": self.path,
            "SERVER_NAME": str(host),
            "SERVER_PORT": str(port),
            "SERVER_PROTOCOL": self.request_version,
            "REMOTE_ADDR": self.client_address[0],
            "REMOTE_PORT": self.client_address[1],
            "CONTENT_LENGTH": str(len(body)),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        for name, value in self.headers.items():
            key = name.upper().replace("-", "_")
            if key == "CONTENT_TYPE":
                environ["CONTENT_TYPE"] = value
            elif key not in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):
                key = "HTTP_" + key
                environ[key] = f"{environ[key]},{value}" if key in environ else value
        return environ

    def log_message(self, format: str, *args: Any) -> None:
        pass   # a line per request would drown the stack's own log


class Headers:
    """A request's header fields in order; `get` matches names in any case (the first
    field of that name), as the email.message object the base class builds."""

    def __init__(self) -> None:
        self._fields: list[tuple[str, str]] = []
        self._first: dict[str, str] = {}

    def append(self, name: str, value: str) -> None:
        self._fields.append((name, value))
        self._first.setdefault(name.lower(), value)

    def get(self, name: str, default: Any = None) -> Any:
        return self._first.get(name.lower(), default)

    def items(self) -> list[tuple[str, str]]:
        return list(self._fields)

    def __len__(self) -> int:
        return len(self._fields)


def make_server(host: str, port: int, app: WsgiApp) -> ThreadingHTTPServer:
    handler = type("Handler", (KeepAliveHandler,), {"app": staticmethod(app)})
    server = _Server((host, port), handler)
    return server


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128   # the stack's pools open dozens of connections at once
