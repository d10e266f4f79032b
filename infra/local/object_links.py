"""Links to stored files (organization exports, uploads, custom emoji), served on the
local stack's own port.

On AWS the server hands out presigned S3 URLs, which S3 answers. Locally the object store
is moto, on a port the stack picks anew at every start: a link to it stops working when
the stack restarts (the `realm_export` event's link, one a user copied), and it is a
second port to reach. So the stack has the app sign links for its own address
(`S3_LINK_ENDPOINT_URL`, chalicelib/aws/aws_clients.presigned_get_url) and its HTTP
server hands the bucket's paths, GET and HEAD only, to moto unchanged. moto serves
anything, signed or not (a listing of every key, exports included; any object with a
garbage signature): so the server first checks each request as S3 checks a presigned
URL (infra/local/link_signatures.py) and refuses what S3 would refuse. Nothing else is
forwarded: other paths are the API's.
"""
from __future__ import annotations

import os
import shutil
import time
from http.server import BaseHTTPRequestHandler
from xml.sax.saxutils import escape

import requests

from chalicelib import config
from chalicelib.local_endpoint import LOCAL_CREDENTIAL
from infra.local.link_signatures import refusal

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
    """Answers with the object store's answer to the same request, streamed, if it is a
    valid link the app signed; else with S3's refusal (403)."""
    refused = refusal(handler.command, handler.path, handler.headers.get("Host", ""),
                      bucket=config.upload_bucket(), access_key=LOCAL_CREDENTIAL,
                      secret=os.environ["AWS_SECRET_ACCESS_KEY"], region=config.region(),
                      now=time.time())
    if refused is not None:
        _refuse(handler, *refused)
        return
    url = os.environ["AWS_ENDPOINT_URL"].rstrip("/") + handler.path
    with requests.request(handler.command, url, stream=True, timeout=60,
                          allow_redirects=False) as answer:
        handler.send_response(answer.status_code)
        for name in _HEADERS:
            if name in answer.headers:
                handler.send_header(name, answer.headers[name])
        handler.send_header("X-Content-Type-Options", "nosniff")
        handler.end_headers()
        if handler.command == "GET":
            shutil.copyfileobj(answer.raw, handler.wfile, _CHUNK)


def _refuse(handler: BaseHTTPRequestHandler, code: str, message: str) -> None:
    body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code>'
            f"<Message>{escape(message)}</Message></Error>").encode()
    handler.send_response(403)
    handler.send_header("Content-Type", "application/xml")
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("X-Content-Type-Options", "nosniff")
    handler.end_headers()
    if handler.command == "GET":
        handler.wfile.write(body)
