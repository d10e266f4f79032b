"""Links to stored files (organization exports, uploads, custom emoji), served on the
local stack's own port.

On AWS the server hands out presigned S3 URLs, which S3 answers. Locally the object store
is moto, on a port the stack picks anew at every start: a link to it stops working when
the stack restarts (the `realm_export` event's link, one a user copied), and it is a
second port to reach. So the stack has the app sign links for its own address
(`S3_LINK_ENDPOINT_URL`, chalicelib/aws/aws_clients.presigned_get_url) and its HTTP
server hands the bucket's paths, GET and HEAD only, to moto unchanged, signature and
all. Nothing else is forwarded: other paths are the API's.
"""
from __future__ import annotations

import os
import shutil
from http.server import BaseHTTPRequestHandler

import requests

from chalicelib import config

# What a file's answer keeps of the object store's headers.
_HEADERS = ("Content-Type", "Content-Length", "Content-Disposition", "ETag", "Last-Modified",
            "Cache-Control", "Content-Encoding", "x-amz-request-id")
_CHUNK = 64 * 1024


def link_endpoint(api_url: str) -> dict[str, str]:
    """The environment that makes the app sign file links for the stack's own address."""
    return {"S3_LINK_ENDPOINT_URL": api_url}


def serves(method: str, path: str) -> bool:
    """A read of the uploads bucket, as a link the app signed names it."""
    return method in ("GET", "HEAD") and path.startswith(f"/{config.upload_bucket()}/")


def forward(handler: BaseHTTPRequestHandler) -> None:
    """Answers with the object store's answer to the same request, streamed."""
    url = os.environ["AWS_ENDPOINT_URL"].rstrip("/") + handler.path
    with requests.request(handler.command, url, stream=True, timeout=60,
                          allow_redirects=False) as answer:
        handler.send_response(answer.status_code)
        for name in _HEADERS:
            if name in answer.headers:
                handler.send_header(name, answer.headers[name])
        handler.end_headers()
        if handler.command == "GET":
            shutil.copyfileobj(answer.raw, handler.wfile, _CHUNK)
