"""The local stack's stored files (issue 47, finding 5): reachable only through the API's
own short-lived links. A stranger who reaches the port can neither list the bucket nor
read an object unsigned or with a forged signature; a link the API gave out works, as an
attachment with `nosniff` when its type could run script (also after a restart:
tests/e2e/test_local_exports.py)."""
from __future__ import annotations

from urllib.parse import urlsplit

import boto3
import requests
from botocore.config import Config

from chalicelib import config
from tests.e2e.conftest import LocalStack

PAGE = b"<script>alert(document.cookie)</script>"


def upload_link(stack: LocalStack) -> str:
    """The demo member uploads an HTML page; the short-lived link the API gives its owner
    (as the reference's temporary-URL endpoint)."""
    member = stack.accounts()["member"]
    auth = (member["email"], member["api_key"])
    uploaded = requests.post(f"{stack.url}/api/v1/user_uploads", auth=auth, timeout=10,
                             files={"file": ("page.html", PAGE, "text/html")})
    assert uploaded.ok, uploaded.text
    link = requests.get(f"{stack.url}/api/v1{uploaded.json()['url']}", auth=auth,
                        timeout=10, allow_redirects=False)
    assert link.status_code == 200 and link.headers["X-Content-Type-Options"] == "nosniff"
    return str(link.json()["url"])


def assert_served_as_download(url: str) -> None:
    answer = requests.get(url, timeout=10)   # the link alone, as a browser follows it
    assert answer.status_code == 200 and answer.content == PAGE, answer.text[:300]
    assert answer.headers["Content-Disposition"] == 'attachment; filename="page.html"'
    assert answer.headers["Content-Type"] == "application/octet-stream"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"


def test_only_the_apis_links_read_stored_files(local_stack):
    url = upload_link(local_stack)
    assert urlsplit(url).netloc == urlsplit(local_stack.url).netloc
    assert_served_as_download(url)
    bucket = f"{local_stack.url}/{config.upload_bucket()}"
    # A stranger lists the bucket (every key, exports included), as S3 would refuse it
    for listing in (f"{bucket}/", f"{bucket}/?list-type=2", f"{bucket}/?prefix=1/"):
        refused = requests.get(listing, timeout=10)
        assert refused.status_code == 403, (listing, refused.text[:300])
        assert b"<Key>" not in refused.content and b"AccessDenied" in refused.content
    # reads the object unsigned, or with a garbage signature
    path, query = url.split("?", 1)
    assert requests.get(path, timeout=10).status_code == 403
    signature = query.split("X-Amz-Signature=")[1]
    forged = requests.get(url.replace(signature, "0" * len(signature)), timeout=10)
    assert forged.status_code == 403 and b"SignatureDoesNotMatch" in forged.content
    # or signs one with the public credential every local stack once used
    key = urlsplit(path).path.removeprefix(f"/{config.upload_bucket()}/")
    signer = boto3.client("s3", endpoint_url=local_stack.url, region_name="us-east-1",
                          aws_access_key_id="local", aws_secret_access_key="local",
                          config=Config(signature_version="s3v4",
                                        s3={"addressing_style": "path"}))
    signed = signer.generate_presigned_url("get_object", ExpiresIn=60, Params={
        "Bucket": config.upload_bucket(), "Key": key})
    assert requests.get(signed, timeout=10).status_code == 403
    # The web client's files and the API's answers say nosniff too
    assert requests.get(f"{local_stack.url}/", timeout=10).headers[
        "X-Content-Type-Options"] == "nosniff"
    unknown = requests.get(f"{local_stack.url}/api/v1/no_such_endpoint", timeout=10)
    assert unknown.status_code == 404 and unknown.headers["X-Content-Type-Options"] == \
        "nosniff"
