"""The local stack's check of a link to a stored file, against links botocore signs as the
app signs them: a valid, unexpired link of one object passes; a listing, an unsigned,
forged, altered, expired or foreign link is refused, as S3 refuses them."""
from __future__ import annotations

import time
from urllib.parse import urlsplit

import boto3
import pytest

from chalicelib import config
from chalicelib.aws import aws_clients
from infra.local.link_signatures import link_secret, refusal

SECRET = "the stack's own secret"
HOST = "127.0.0.1:8123"


@pytest.fixture
def sign(monkeypatch):
    """A link as the local stack's app signs it: (method, target) of its request."""
    monkeypatch.setenv("S3_LINK_ENDPOINT_URL", f"http://{HOST}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "local")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)   # it keeps the credentials it read
    aws_clients._link_signer.cache_clear()

    def link(key: str = "1/0123456789abcdef01234567/a b+c.html", seconds: int = 60,
             **params: str) -> str:
        url = urlsplit(aws_clients.presigned_get_url(key, seconds, **params))
        assert url.netloc == HOST
        return f"{url.path}?{url.query}"

    yield link
    aws_clients._link_signer.cache_clear()


def check(target: str, method: str = "GET", secret: str = SECRET, now: float | None = None,
          host: str = HOST):
    return refusal(method, target, host, bucket=config.upload_bucket(), access_key="local",
                   secret=secret, region=config.region(),
                   now=time.time() if now is None else now)


def test_a_link_the_app_signed_passes(sign):
    assert check(sign()) is None
    overridden = sign(ResponseContentDisposition='attachment; filename="a.html"',
                      ResponseContentType="application/octet-stream")
    assert check(overridden) is None


def test_listing_the_bucket_is_refused(sign):
    bucket = config.upload_bucket()
    for target in (f"/{bucket}/", f"/{bucket}/?list-type=2", f"/{bucket}/?prefix=1/",
                   f"/{bucket}"):
        assert check(target) == ("AccessDenied", "Access Denied"), target


def test_unsigned_and_forged_links_are_refused(sign):
    target = sign()
    path, query = target.split("?")
    assert check(path)[0] == "AccessDenied"
    forged = query.replace(query.split("X-Amz-Signature=")[1], "0" * 64)
    assert check(f"{path}?{forged}")[0] == "SignatureDoesNotMatch"
    # signed with the public credential every local stack once used
    assert check(target, secret="local")[0] == "SignatureDoesNotMatch"


def test_an_altered_link_is_refused(sign):
    target = sign()
    path, query = target.split("?")
    other = path.replace("a%20b%2Bc.html", "other.html")
    assert check(f"{other}?{query}")[0] == "SignatureDoesNotMatch"
    assert check(f"{path}?acl&{query}")[0] == "SignatureDoesNotMatch"
    assert check(f"{path}?{query}&response-content-type=text%2Fhtml")[0] == \
        "SignatureDoesNotMatch"
    assert check(target, host="evil.example:8123")[0] == "SignatureDoesNotMatch"
    assert check(target, method="HEAD")[0] == "SignatureDoesNotMatch"   # as S3
    assert check(target, method="PUT")[0] == "SignatureDoesNotMatch"


def test_an_expired_link_is_refused(sign):
    target = sign(seconds=60)
    assert check(target, now=time.time() + 59) is None
    assert check(target, now=time.time() + 120) == ("AccessDenied", "Request has expired")


def test_the_secret_is_made_once_and_kept(tmp_path):
    first = link_secret(tmp_path)
    assert len(first) >= 40 and first != "local"
    assert link_secret(tmp_path) == first
    assert (tmp_path / "link-secret").stat().st_mode & 0o077 == 0
