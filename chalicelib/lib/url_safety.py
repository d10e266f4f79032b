"""Refuses webhook URLs that would reach internal addresses (SSRF guard)."""
from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from chalicelib import config


class UnsafeUrlError(ValueError):
    """The URL is malformed or points at a private, loopback, link-local or metadata host."""


def _is_internal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return (address.is_private or address.is_loopback or address.is_link_local
            or address.is_multicast or address.is_reserved or address.is_unspecified)


def resolve_public_addresses(url: str, *, allow_loopback: bool | None = None) -> list[str]:
    """The addresses `url` resolves to, if every one of them may be contacted.

    Checking every resolved address (not just the first) stops DNS answers that mix a
    public and an internal address; callers should connect to one of the returned ones.
    """
    if allow_loopback is None:
        allow_loopback = config.allow_private_webhook_hosts()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeUrlError("Only http and https URLs with a host name are allowed.")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except socket.gaierror:
        raise UnsafeUrlError(f"Cannot resolve host '{parts.hostname}'.") from None
    addresses = []
    for *_, sockaddr in infos:
        address = ipaddress.ip_address(sockaddr[0].split("%")[0])
        if _is_internal(address) and not (allow_loopback and address.is_loopback):
            raise UnsafeUrlError(
                f"'{parts.hostname}' resolves to an internal address ({address}); "
                "webhooks may only reach public hosts.")
        addresses.append(str(address))
    return addresses


def check_url_syntax(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeUrlError("Only http and https URLs with a host name are allowed.")
    return url.strip()
