"""The web client's files as the local stack serves them, and the security headers the
local server and the CloudFront distribution share."""
from __future__ import annotations

import gzip
import re

import pytest

from infra.local import web_static
from infra.resources import load_template
from infra.web_security import content_security_policy


@pytest.fixture
def build(tmp_path):
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><script type=module src=/assets/a.js></script>")
    (tmp_path / "assets" / "a-1234.js").write_text("console.log(1)")
    (tmp_path / ".built").write_text("")
    (tmp_path.parent / "secret.txt").write_text("outside")
    return tmp_path


def test_paths_resolve_inside_the_build_only(build):
    assert web_static.resolve("/", build) == build / "index.html"
    assert web_static.resolve("/?x=1", build) == build / "index.html"
    assert web_static.resolve("/assets/a-1234.js", build) == build / "assets" / "a-1234.js"
    for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/assets/../../secret.txt",
                 "/.built", "/assets/missing.js", "/assets", "/index.html%00.js",
                 "/%2Fetc/passwd"):
        assert web_static.resolve(path, build) is None, path


def test_the_app_keeps_its_paths():
    for path in ("/api/v1/messages", "/api/docs", "/accounts/register", "/join/abc", "/api"):
        assert not web_static.is_client_path(path), path
    for path in ("/", "/index.html", "/assets/index-abc.js"):
        assert web_static.is_client_path(path), path


def test_headers_name_the_type_the_policy_and_the_caching(build):
    page = web_static.headers_for(build / "index.html", "ws://127.0.0.1:9")
    asset = web_static.headers_for(build / "assets" / "a-1234.js", "ws://127.0.0.1:9")
    assert page["Content-Type"] == "text/html; charset=utf-8"
    assert asset["Content-Type"] == "text/javascript; charset=utf-8"
    assert page["Cache-Control"] == "no-cache" and "immutable" in asset["Cache-Control"]
    policy = page["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "unsafe" not in policy
    assert "connect-src 'self' ws://127.0.0.1:9;" in policy
    assert page["X-Content-Type-Options"] == "nosniff"


def test_the_distribution_sends_the_same_policy_as_the_local_stack():
    resources = load_template()["Resources"]
    config = resources["WebResponseHeaders"]["Properties"]["ResponseHeadersPolicyConfig"]
    policy = config["SecurityHeadersConfig"]["ContentSecurityPolicy"]["ContentSecurityPolicy"]
    origin = "wss://${WebsocketAPI}.execute-api.${AWS::Region}.${AWS::URLSuffix}"
    # images also from the uploads bucket's links (either host S3 signs for)
    uploads = ("https://${UploadsBucket}.s3.amazonaws.com "
               "https://${UploadsBucket}.s3.${AWS::Region}.amazonaws.com")
    assert policy == {"Fn::Sub": content_security_policy(origin, uploads)}
    behaviours = resources["WebDistribution"]["Properties"]["DistributionConfig"]
    assert behaviours["DefaultCacheBehavior"]["ResponseHeadersPolicyId"] == {
        "Ref": "WebResponseHeaders"}
    # The API's paths go to the API, the rest to the bucket (the same split as locally)
    patterns = {b["PathPattern"] for b in behaviours["CacheBehaviors"]}
    assert patterns == {p.rstrip("/") + "/*" for p in web_static.APP_PREFIXES
                        if p != "/user_uploads/"}
    assert all(b["TargetOriginId"] == "api" for b in behaviours["CacheBehaviors"])


def test_the_bucket_is_private_and_read_by_the_distribution_only():
    resources = load_template()["Resources"]
    bucket = resources["WebBucket"]["Properties"]
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    statements = resources["WebBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    allow = [s for s in statements if s["Effect"] == "Allow"]
    assert len(allow) == 1 and allow[0]["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert allow[0]["Action"] == "s3:GetObject"
    assert re.search(r"distribution/\$\{WebDistribution\}",
                     allow[0]["Condition"]["StringEquals"]["AWS:SourceArn"]["Fn::Sub"])


def test_the_build_is_served_compressed_when_the_browser_takes_it(build):
    asset = build / "assets" / "a-1234.js"
    (build / "assets" / "a-1234.js.gz").write_bytes(gzip.compress(asset.read_bytes()))
    status, headers, body = web_static.answer("/assets/a-1234.js", "gzip, deflate, br", build)
    assert (status, headers["Content-Encoding"]) == (200, "gzip")
    assert gzip.decompress(body) == asset.read_bytes()
    assert headers["Vary"] == "Accept-Encoding" and "immutable" in headers["Cache-Control"]
    assert headers["Content-Type"] == "text/javascript; charset=utf-8"
    status, headers, body = web_static.answer("/assets/a-1234.js", "identity", build)
    assert "Content-Encoding" not in headers and body == asset.read_bytes()
    # the page has no compressed copy: it goes as it is
    assert "Content-Encoding" not in web_static.answer("/", "gzip", build)[1]


def test_locally_the_page_reaches_the_push_channel_on_any_port_and_upload_links(build,
                                                                                monkeypatch):
    """The local stack's push channel gets a new port at each start: a page open across a
    restart re-reads the address and must be allowed to connect to it."""
    monkeypatch.setenv("WEBSOCKET_URL", "ws://127.0.0.1:4321")
    monkeypatch.setenv("S3_LINK_ENDPOINT_URL", "http://127.0.0.1:8106")
    policy = web_static.answer("/", "", build)[1]["Content-Security-Policy"]
    assert "connect-src 'self' ws://127.0.0.1:*;" in policy
    assert "img-src 'self' data: http://127.0.0.1:8106;" in policy


def test_publishing_leaves_the_local_compressed_copies_out(build):
    from infra.publish_web import files_in_order

    (build / "assets" / "a-1234.js.gz").write_bytes(b"x")
    (build / "assets" / "a-1234.js.br").write_bytes(b"x")
    names = [f.relative_to(build).as_posix() for f in files_in_order(build)]
    assert names == ["assets/a-1234.js", "index.html"]
