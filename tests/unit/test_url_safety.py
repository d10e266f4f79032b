"""The webhook SSRF guard: every resolved address must be public, unless loopback is
allowed for local development."""
from __future__ import annotations

import socket

import pytest

from chalicelib.rules import url_safety
from chalicelib.rules.url_safety import (
    HostLookupError,
    UnsafeUrlError,
    check_url_syntax,
    resolve_public_addresses,
)


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/hook", "http://localhost:9991/", "http://10.1.2.3/", "http://192.168.0.1/",
    "http://172.16.5.4/", "http://169.254.169.254/latest/meta-data",   # cloud metadata
    "http://100.100.100.200/",              # shared address space (another cloud's metadata)
    "http://0.0.0.0/", "http://224.0.0.1/", "http://255.255.255.255/",
    "http://[::1]/", "http://[::]/", "http://[fe80::1]/", "http://[fd00:ec2::254]/",
    "http://[::ffff:127.0.0.1]/", "http://[::ffff:169.254.169.254]/",   # IPv4-mapped
    "http://[64:ff9b::a9fe:a9fe]/",         # NAT64 of 169.254.169.254
    "http://[2002:a9fe:a9fe::1]/",          # 6to4 of 169.254.169.254
    "http://[ff02::1]/",
])
def test_internal_addresses_are_refused(url):
    with pytest.raises(UnsafeUrlError):
        resolve_public_addresses(url, allow_loopback=False)


@pytest.mark.parametrize("url", ["ftp://example.com/", "http:///nohost", "javascript:alert(1)",
                                 "http://example.com:99999/"])
def test_malformed_urls_are_refused(url):
    with pytest.raises(UnsafeUrlError):
        resolve_public_addresses(url, allow_loopback=False)


def fake_dns(monkeypatch, answers: dict[str, list[str]]) -> None:
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host not in answers:
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "",
                 (a, port)) for a in answers[host]]

    monkeypatch.setattr(url_safety.socket, "getaddrinfo", getaddrinfo)


def test_a_name_is_refused_if_any_of_its_addresses_is_internal(monkeypatch):
    fake_dns(monkeypatch, {"bots.example.com": ["93.184.216.34", "10.0.0.7"],
                           "v6.example.com": ["2606:4700::1", "fd12::1"],
                           "metadata.example.com": ["169.254.169.254"],
                           "public.example.com": ["93.184.216.34", "2606:4700::1"]})
    for host in ("bots.example.com", "v6.example.com", "metadata.example.com"):
        with pytest.raises(UnsafeUrlError, match="internal address"):
            resolve_public_addresses(f"https://{host}/hook", allow_loopback=False)
    assert resolve_public_addresses("https://public.example.com/hook", allow_loopback=False) \
        == ["93.184.216.34", "2606:4700::1"]


def test_a_name_that_does_not_resolve_is_a_lookup_error(monkeypatch):
    def fail(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(url_safety.socket, "getaddrinfo", fail)
    with pytest.raises(HostLookupError):
        resolve_public_addresses("https://nowhere.example.com/", allow_loopback=False)


def test_loopback_only_when_allowed_for_local_development(monkeypatch):
    assert resolve_public_addresses("http://127.0.0.1:9991/", allow_loopback=True) == ["127.0.0.1"]
    assert resolve_public_addresses("http://[::1]:9991/", allow_loopback=True) == ["::1"]
    for url in ("http://10.0.0.1/", "http://169.254.169.254/", "http://[fd00::1]/"):
        with pytest.raises(UnsafeUrlError):
            resolve_public_addresses(url, allow_loopback=True)
    # the deployment's setting decides when the caller does not
    monkeypatch.delenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", raising=False)
    with pytest.raises(UnsafeUrlError):
        resolve_public_addresses("http://127.0.0.1:9991/")
    monkeypatch.setenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", "loopback")
    assert resolve_public_addresses("http://127.0.0.1:9991/") == ["127.0.0.1"]


def test_public_address_literals_are_allowed():
    assert resolve_public_addresses("https://93.184.216.34/hook", allow_loopback=False) == [
        "93.184.216.34"]
    assert resolve_public_addresses("https://[2606:4700::1]/hook", allow_loopback=False) == [
        "2606:4700::1"]


def test_syntax_check():
    assert check_url_syntax(" https://bots.example.com/x ") == "https://bots.example.com/x"
    for url in ("javascript:alert(1)", "bots.example.com/x", "http://x.example.com:port/",
                "http://[::1", "http://[not-ip]/", "http://exa mple.com/",
                "http://a.example/\tb", "http://a.exa\nmple/"):
        with pytest.raises(UnsafeUrlError):
            check_url_syntax(url)
