"""The webhook SSRF guard."""
from __future__ import annotations

import pytest

from chalicelib.lib.url_safety import UnsafeUrlError, check_url_syntax, resolve_public_addresses


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/hook", "http://localhost:9991/", "http://10.1.2.3/", "http://192.168.0.1/",
    "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://0.0.0.0/",
    "http://[::ffff:127.0.0.1]/", "ftp://example.com/", "http:///nohost",
])
def test_internal_or_malformed_urls_are_refused(url):
    with pytest.raises(UnsafeUrlError):
        resolve_public_addresses(url, allow_loopback=False)


def test_loopback_only_when_allowed_for_local_development():
    assert resolve_public_addresses("http://127.0.0.1:9991/", allow_loopback=True) == ["127.0.0.1"]
    with pytest.raises(UnsafeUrlError):
        resolve_public_addresses("http://10.0.0.1/", allow_loopback=True)


def test_public_address_literal_is_allowed():
    assert resolve_public_addresses("https://93.184.216.34/hook", allow_loopback=False) == [
        "93.184.216.34"]


def test_syntax_check():
    assert check_url_syntax(" https://bots.example.com/x ") == "https://bots.example.com/x"
    with pytest.raises(UnsafeUrlError):
        check_url_syntax("javascript:alert(1)")
