"""The webhook HTTP client: pinned to the vetted address, timeouts and connection errors
told apart from answers (loopback sockets only, no AWS)."""
from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from chalicelib.rules import url_safety
from chalicelib.rules.url_safety import UnsafeUrlError
from chalicelib.rules.webhook_interfaces import WebhookRequest
from chalicelib.webhooks.client import WebhookTimeout, WebhookUnreachable, post

REQUEST = WebhookRequest(b'{"data": "hi"}', "application/json")


@pytest.fixture
def server(monkeypatch) -> Iterator[dict[str, Any]]:
    monkeypatch.setenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", "loopback")
    seen: dict[str, Any] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.update(path=self.path, host=self.headers["Host"],
                        type=self.headers["Content-Type"],
                        body=self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(302)   # redirects are answers, never followed
            self.send_header("Location", "http://169.254.169.254/")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    seen["port"] = httpd.server_address[1]
    yield seen
    httpd.shutdown()


def test_the_connection_goes_to_the_address_that_was_checked(server, monkeypatch):
    # GIVEN a name whose DNS answer changes after the check (DNS rebinding)
    answers = iter([["127.0.0.1"], ["10.0.0.1"], ["10.0.0.1"]])
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host != "hook.example.test":
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in next(answers)]

    monkeypatch.setattr(url_safety.socket, "getaddrinfo", getaddrinfo)
    # WHEN a request is posted THEN it reaches the checked address, named by its host
    response = post(f"http://hook.example.test:{server['port']}/path?x=1", REQUEST, 5)
    assert response.status == 302 and response.body == b"{}"
    assert server["path"] == "/path?x=1" and server["host"] == f"hook.example.test:{server['port']}"
    assert server["type"] == "application/json" and server["body"] == REQUEST.body


def test_refused_addresses_are_never_contacted(monkeypatch):
    monkeypatch.delenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", raising=False)
    with pytest.raises(UnsafeUrlError):
        post("http://127.0.0.1:9/", REQUEST, 1)


def test_connection_errors_and_timeouts_are_unreachable(monkeypatch):
    monkeypatch.setenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", "loopback")
    with pytest.raises(WebhookUnreachable) as refused:
        post("http://127.0.0.1:9/", REQUEST, 1)
    assert not isinstance(refused.value, WebhookTimeout)
    silent = socket.socket()   # accepts connections, never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)
    try:
        with pytest.raises(WebhookTimeout):
            post(f"http://127.0.0.1:{silent.getsockname()[1]}/", REQUEST, 0.2)
    finally:
        silent.close()

    def no_dns(*args, **kwargs):
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(url_safety.socket, "getaddrinfo", no_dns)
    with pytest.raises(WebhookUnreachable, match="Cannot resolve"):
        post("https://bots.example.com/", REQUEST, 1)


def test_international_urls_go_out_in_ascii(server, monkeypatch):
    """A URL with non-ASCII characters (valid in a bot's settings) is sent percent-encoded,
    its host in IDNA form; http.client would otherwise fail before sending anything."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host != "bücher.example.test":
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(url_safety.socket, "getaddrinfo", getaddrinfo)
    response = post(f"http://bücher.example.test:{server['port']}/hoök/a%20b?q=ü&r=1",
                    REQUEST, 5)
    assert response.status == 302
    assert server["path"] == "/ho%C3%B6k/a%20b?q=%C3%BC&r=1"
    assert server["host"] == f"xn--bcher-kva.example.test:{server['port']}"


@pytest.mark.parametrize("url", ["http://[::1", "http://exa mple.com/", "http://a.example/\n",
                                 "http://a.example/\x7f"])
def test_malformed_urls_are_refused_not_crashed_on(url):
    with pytest.raises(UnsafeUrlError):
        post(url, REQUEST, 1)
