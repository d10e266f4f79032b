"""The web client's files as the local stack serves them, and the security headers the
local server and the CloudFront distribution share."""
from __future__ import annotations

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
    assert policy == {"Fn::Sub": content_security_policy(origin)}
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
