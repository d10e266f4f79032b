"""Publishes the web client's build (web/dist) to the deployment's bucket, behind its
CloudFront distribution (the stack's outputs WebBucketName and WebDistributionId):

    make web && .venv/bin/python -m infra.publish_web --stack teamchat

Hashed files go first with a year's caching, then index.html (no-cache), so a page never
names a file that is not there yet; then the distribution forgets its copy of the page.
"""
from __future__ import annotations

import argparse
import mimetypes
import time
from pathlib import Path
from typing import Any

import boto3

from infra.local.web_static import WEB_ROOT
from infra.web_security import ASSET_CACHE_CONTROL, PAGE_CACHE_CONTROL

_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}


def stack_outputs(stack: str) -> dict[str, str]:
    described = boto3.client("cloudformation").describe_stacks(StackName=stack)
    return {o["OutputKey"]: o["OutputValue"] for o in described["Stacks"][0].get("Outputs", [])}


def files_in_order(root: Path) -> list[Path]:
    """Every file but hidden ones (the build's stamp) and the compressed copies the local
    server sends (CloudFront compresses by itself), the page itself last."""
    files = [f for f in sorted(root.rglob("*"))
             if f.is_file() and f.suffix not in (".gz", ".br")
             and not any(part.startswith(".") for part in f.relative_to(root).parts)]
    return sorted(files, key=lambda f: f.name == "index.html")


def publish(bucket: str, distribution: str | None = None, root: Path = WEB_ROOT,
            s3: Any = None, cloudfront: Any = None) -> list[str]:
    if not (root / "index.html").exists():
        raise SystemExit(f"{root} has no build: run `make web` first")
    s3 = s3 or boto3.client("s3")
    keys = []
    for file in files_in_order(root):
        key = file.relative_to(root).as_posix()
        s3.put_object(Bucket=bucket, Key=key, Body=file.read_bytes(),
                      ContentType=_TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0]
                      or "application/octet-stream",
                      CacheControl=PAGE_CACHE_CONTROL if file.name == "index.html"
                      else ASSET_CACHE_CONTROL)
        keys.append(key)
    if distribution:
        cloudfront = cloudfront or boto3.client("cloudfront")
        cloudfront.create_invalidation(DistributionId=distribution, InvalidationBatch={
            "Paths": {"Quantity": 2, "Items": ["/", "/index.html"]},
            "CallerReference": f"publish-{time.time_ns()}"})
    return keys


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", help="the CloudFormation stack's name (reads its outputs)")
    parser.add_argument("--bucket", help="the bucket, instead of the stack's output")
    parser.add_argument("--distribution", help="the distribution, instead of the stack's output")
    args = parser.parse_args(argv)
    outputs = stack_outputs(args.stack) if args.stack else {}
    bucket = args.bucket or outputs.get("WebBucketName")
    if not bucket:
        raise SystemExit("name the stack (--stack) or the bucket (--bucket)")
    keys = publish(bucket, args.distribution or outputs.get("WebDistributionId"))
    print(f"published {len(keys)} files to s3://{bucket}/")


if __name__ == "__main__":
    main()
