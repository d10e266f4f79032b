"""POSTs a webhook request, connecting only to the address that was vetted.

The host is resolved once and every address checked (rules/url_safety.py); the connection
then goes to that address, with the original host name for the Host header and TLS,
so a DNS answer that changes between the check and the connect cannot redirect it.
Redirects are not followed (a 3xx answer is an error answer like any non-2xx).
"""
from __future__ import annotations

import http.client
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from chalicelib import config
from chalicelib.rules.url_safety import HostLookupError, resolve_public_addresses
from chalicelib.rules.webhook_interfaces import WebhookRequest

USER_AGENT = f"ServiceOutgoingWebhook/{config.SERVICE_VERSION}"
MAX_RESPONSE_BYTES = 1024 * 1024
# RFC 3986 characters a path or query may hold as they are; "%" keeps existing escapes.
_URI_SAFE = "/?:@!$&'()*+,;=%"


class WebhookUnreachable(Exception):
    """A connection error: worth retrying."""


class WebhookTimeout(WebhookUnreachable):
    """The receiver did not answer in time: worth retrying."""


@dataclass(frozen=True)
class WebhookResponse:
    status: int
    body: bytes


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


def post(url: str, request: WebhookRequest, timeout: float) -> WebhookResponse:
    """Raises UnsafeUrlError for a refused URL, WebhookUnreachable for network failures."""
    try:
        addresses = resolve_public_addresses(url)
    except HostLookupError as error:
        raise WebhookUnreachable(str(error)) from error
    parts = urlsplit(url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    # The request line and headers are ASCII: non-ASCII paths are percent-encoded and
    # international host names sent in their IDNA form, as a browser would.
    path = quote((parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
                 safe=_URI_SAFE)
    host = parts.netloc.rsplit("@", 1)[-1]
    if not host.isascii():
        host = host.encode("idna").decode("ascii")   # getaddrinfo accepted this name
    connection_class = _PinnedHTTPSConnection if https else _PinnedHTTPConnection
    connection = connection_class(addresses[0], parts.hostname or "", port, timeout)
    try:
        connection.request("POST", path, body=request.body, headers={
            "Content-Type": request.content_type, "User-Agent": USER_AGENT, "Host": host})
        response = connection.getresponse()
        return WebhookResponse(response.status, response.read(MAX_RESPONSE_BYTES))
    except TimeoutError as error:   # socket.timeout is TimeoutError since Python 3.10
        raise WebhookTimeout(f"{type(error).__name__}: {error}") from error
    except (OSError, http.client.HTTPException) as error:
        raise WebhookUnreachable(f"{type(error).__name__}: {error}") from error
    finally:
        connection.close()
