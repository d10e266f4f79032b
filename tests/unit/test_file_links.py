"""Links to stored files (exports, uploads, emoji): on AWS an S3 URL presigned with
Signature Version 4 on the region's host; on the local stack, signed for the stack's own
address, whose server hands the bucket's paths to the object store."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from chalicelib import config
from chalicelib.aws.aws_clients import presigned_get_url
from infra.local import object_links


def test_on_aws_a_link_is_signed_with_version_4_on_the_regions_host(monkeypatch):
    monkeypatch.delenv("S3_LINK_ENDPOINT_URL", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    url = urlsplit(presigned_get_url("1/exports/2/abc.json", 3600,
                                     ResponseContentDisposition="attachment"))
    query = parse_qs(url.query)
    assert url.scheme == "https"
    assert url.netloc == f"{config.upload_bucket()}.s3.eu-west-1.amazonaws.com"
    assert url.path == "/1/exports/2/abc.json"
    # Version 2 (AWSAccessKeyId, Signature) is refused for buckets made since June 2020
    assert query["X-Amz-Algorithm"] == ["AWS4-HMAC-SHA256"] and "Signature" not in query
    assert query["X-Amz-Expires"] == ["3600"]
    assert query["response-content-disposition"] == ["attachment"]


def test_on_the_local_stack_a_link_names_the_stacks_own_address(monkeypatch):
    monkeypatch.setenv("S3_LINK_ENDPOINT_URL", "http://127.0.0.1:8123")
    url = urlsplit(presigned_get_url("1/ab/c.txt", 60))
    assert (url.netloc, url.path) == ("127.0.0.1:8123", f"/{config.upload_bucket()}/1/ab/c.txt")
    assert object_links.serves("GET", url.path) and object_links.serves("HEAD", url.path)


@pytest.mark.parametrize("method, path", [
    ("PUT", f"/{config.upload_bucket()}/1/a"), ("DELETE", f"/{config.upload_bucket()}/1/a"),
    ("GET", "/api/v1/users/me"), ("GET", f"/{config.upload_bucket()}x/1/a"),
    ("GET", f"/{config.upload_bucket()}")])
def test_the_stack_forwards_only_reads_of_the_bucket(method, path):
    assert not object_links.serves(method, path)
