"""Refuses webhook URLs that would reach internal addresses (SSRF guard)."""
from __future__ import annotations

import ipaddress
import socket
from urllib.parse import SplitResult, urlsplit

from chalicelib import config

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
NAT64_PREFIX = ipaddress.IPv6Network("64:ff9b::/96")


class UnsafeUrlError(ValueError):
    """The URL is malformed or points at a private, loopback, link-local or metadata host."""


class HostLookupError(OSError):
    """The host name did not resolve (possibly a passing DNS failure: worth retrying)."""


def embedded_ipv4(address: Address) -> Address:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, Teredo, NAT64), if any."""
    if isinstance(address, ipaddress.IPv4Address):
        return address
    if address.ipv4_mapped:
        return address.ipv4_mapped
    if address.sixtofour:
        return address.sixtofour
    if address.teredo:
        return address.teredo[1]
    if address in NAT64_PREFIX:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def is_internal(address: Address) -> bool:
    """Anything not globally routable: private, loopback, link-local (169.254.169.254,
    the cloud metadata address), shared (100.64/10), unique-local (fd00:ec2::254),
    reserved, multicast or unspecified, also when wrapped in an IPv6 address."""
    for candidate in {address, embedded_ipv4(address)}:
        if (not candidate.is_global or candidate.is_multicast or candidate.is_reserved
                or candidate.is_unspecified or candidate.is_loopback
                or candidate.is_link_local or candidate.is_private):
            return True
        if isinstance(candidate, ipaddress.IPv6Address) and candidate.is_site_local:
            return True
    return False


def resolve_public_addresses(url: str, *, allow_loopback: bool | None = None) -> list[str]:
    """The addresses `url` resolves to, if every one of them may be contacted.

    Checking every resolved address (not just the first) stops DNS answers that mix a
    public and an internal address; callers should connect to one of the returned ones.
    """
    if allow_loopback is None:
        allow_loopback = config.allow_private_webhook_hosts()
    parts = _split(url)
    try:
        infos = socket.getaddrinfo(parts.hostname, _port(parts), proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise HostLookupError(f"Cannot resolve host '{parts.hostname}'.") from None
    addresses = []
    for *_, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if is_internal(address) and not (allow_loopback
                                         and embedded_ipv4(address).is_loopback):
            raise UnsafeUrlError(
                f"'{parts.hostname}' resolves to an internal address ({address}); "
                "webhooks may only reach public hosts.")
        addresses.append(str(address))
    if not addresses:
        raise HostLookupError(f"Cannot resolve host '{parts.hostname}'.")
    return addresses


def check_url_syntax(url: str) -> str:
    url = url.strip()
    _port(_split(url))
    return url


def _split(url: str) -> SplitResult:
    """The parts of an http(s) URL with a host; UnsafeUrlError for anything else."""
    # Whitespace or control characters would reach the request line or the Host header.
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise UnsafeUrlError("The URL contains spaces or control characters.")
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
    except ValueError:   # e.g. an unclosed IPv6 literal: "http://[::1"
        raise UnsafeUrlError("The URL is malformed.") from None
    if parts.scheme not in ("http", "https") or not hostname:
        raise UnsafeUrlError("Only http and https URLs with a host name are allowed.")
    return parts


def _port(parts: SplitResult) -> int:
    try:
        return parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise UnsafeUrlError("The URL's port is not a number from 0 to 65535.") from None
