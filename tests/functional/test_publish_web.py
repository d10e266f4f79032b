"""Publishing the web client's build to the deployment's bucket (on moto's S3)."""
from __future__ import annotations

import boto3

from infra.publish_web import publish


class Invalidations:
    def __init__(self) -> None:
        self.batches: list[dict] = []

    def create_invalidation(self, DistributionId: str, InvalidationBatch: dict) -> dict:
        self.batches.append({"id": DistributionId, **InvalidationBatch})
        return {}


def test_publish_uploads_the_build_page_last_and_invalidates_it(aws, tmp_path):
    # GIVEN a build and the deployment's bucket
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "index-abc.js").write_text("export {}")
    (tmp_path / "assets" / "index-abc.css").write_text("body{}")
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / ".built").write_text("")
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="web-test")
    cloudfront = Invalidations()
    # WHEN it is published
    keys = publish("web-test", "E123", root=tmp_path, s3=s3, cloudfront=cloudfront)
    # THEN every file is there with its type and caching, the page last, no hidden file
    assert keys == ["assets/index-abc.css", "assets/index-abc.js", "index.html"]
    page = s3.head_object(Bucket="web-test", Key="index.html")
    script = s3.head_object(Bucket="web-test", Key="assets/index-abc.js")
    assert page["ContentType"] == "text/html; charset=utf-8" and page["CacheControl"] == "no-cache"
    assert script["ContentType"].startswith("text/javascript")
    assert "immutable" in script["CacheControl"]
    # AND the distribution forgets its copy of the page
    assert cloudfront.batches[0]["id"] == "E123"
    assert cloudfront.batches[0]["Paths"]["Items"] == ["/", "/index.html"]
