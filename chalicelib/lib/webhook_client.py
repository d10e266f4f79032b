"""POSTs JSON to a webhook receiver, connecting only to the address that was vetted.

The host is resolved once and every address checked (lib/url_safety); the connection
then goes to that address, with the original host name for the Host header and TLS,
so a DNS answer that changes between the check and the connect cannot redirect it.
"""
from __future__ import annotations

import http.client
import json
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from chalicelib.lib.url_safety import resolve_public_addresses

USER_AGENT = "teamchat-outgoing-webhook/1.0"
MAX_RESPONSE_BYTES = 1024 * 1024


class WebhookUnreachable(Exception):
    """A connection error or timeout: worth retrying."""


@dataclass(frozen=True)
class WebhookResponse:
    status: int
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            return None


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, address: str, hostname: str, port: int, timeout: float) -> None:
        super().__init__(hostname, port, timeout=timeout,
                         context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, address: str, hostname: str, port: int, timeout: float) -> None:
        super().__init__(hostname, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


def post_json(url: str, payload: dict[str, Any], timeout: float) -> WebhookResponse:
    """Raises UnsafeUrlError for a refused URL and WebhookUnreachable for network failures."""
    addresses = resolve_public_addresses(url)
    parts = urlsplit(url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    body = json.dumps(payload).encode()
    connection_class = _PinnedHTTPSConnection if https else _PinnedHTTPConnection
    connection = connection_class(addresses[0], parts.hostname or "", port, timeout)
    try:
        connection.request("POST", path, body=body, headers={
            "Content-Type": "application/json", "User-Agent": USER_AGENT,
            "Host": parts.netloc.rsplit("@", 1)[-1]})
        response = connection.getresponse()
        return WebhookResponse(response.status, response.read(MAX_RESPONSE_BYTES))
    except (OSError, http.client.HTTPException) as error:   # timeouts are OSErrors
        raise WebhookUnreachable(f"{type(error).__name__}: {error}") from error
    finally:
        connection.close()
