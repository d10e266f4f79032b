"""Answers compressed with gzip for clients that accept it, and a clear error instead of
an answer no Lambda function can return.

A synchronous Lambda invocation answers at most 6 MB, and that is the whole proxy
response: the body as a JSON string (quotes escaped), or base64 text for a binary
body. In a large organization some answers pass it uncompressed (POST /register with
every subscriber list at 10,000 people: docs/scale.md); JSON compresses about tenfold.
So a JSON answer of GZIP_FROM_BYTES or more goes out gzipped when the request's
Accept-Encoding allows it (the official clients, `requests` and browsers all send it).
On AWS, API Gateway passes the bytes on because the API's binary media types include
`*/*` (infra/template.json); requests then reach the function base64-encoded, which
Chalice decodes (`Request.raw_body`).

An answer too large to return even so is replaced by an error that says what to ask
for instead (http/answer_advice.py: its largest parts and what would leave them out,
never a parameter the request already used), rather than the 502 API Gateway would give.
"""
from __future__ import annotations

import base64
import gzip
import json
from typing import Any

from chalice.app import Response

from chalicelib.core.errors import ApiError
from chalicelib.http.answer_advice import advice, readable_size
from chalicelib.http.response import json_error

GZIP_FROM_BYTES = 1024
GZIP_LEVEL = 5          # nearly level 9's size at a third of its time on 5 MB of JSON
# What a Lambda answer may hold, less room for the status line and the headers.
MAX_INVOCATION_ANSWER_BYTES = 6 * 1024 * 1024 - 16 * 1024


class GzipResponse(Response):
    """A JSON answer gzipped, returned to API Gateway base64-encoded."""

    def to_dict(self, binary_types: list[str] | None = None) -> dict[str, Any]:
        response = super().to_dict(None)
        response["body"] = base64.b64encode(self.body).decode("ascii")
        response["isBase64Encoded"] = True
        return response


def accepts_gzip(headers: Any) -> bool:
    """Accept-Encoding names gzip (or *) without refusing it (q=0)."""
    for part in str(headers.get("accept-encoding") or "").split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*") and params.replace(" ", "") not in (
                "q=0", "q=0.0", "q=0.00", "q=0.000"):
            return True
    return False


def fitted(response: Response, headers: Any) -> Response:
    """The answer as it should leave: gzipped when accepted and worth it; an error when
    it cannot leave at all."""
    body = response.body
    if not isinstance(body, str) or not str(response.headers.get(
            "Content-Type", "")).startswith("application/json"):
        return response
    if len(body) >= GZIP_FROM_BYTES and accepts_gzip(headers):
        packed = gzip.compress(body.encode(), compresslevel=GZIP_LEVEL)
        if len(packed) * 4 // 3 < MAX_INVOCATION_ANSWER_BYTES:
            return GzipResponse(packed, {**response.headers, "Content-Encoding": "gzip",
                                         "Vary": "Accept-Encoding"},
                                response.status_code)
        return _too_large(body, gzip_tried=True)
    # As a JSON string in the invocation's answer, each quote and backslash doubles.
    if len(body) * 2 >= MAX_INVOCATION_ANSWER_BYTES and \
            len(json.dumps(body)) >= MAX_INVOCATION_ANSWER_BYTES:
        return _too_large(body, gzip_tried=False)
    return response


def _too_large(body: str, gzip_tried: bool) -> Response:
    gzip_hint = "" if gzip_tried else " Ask for it with 'Accept-Encoding: gzip', or ask for less."
    return json_error(ApiError(
        f"This answer would be {readable_size(len(body))}, more than the server can return "
        f"in one response.{gzip_hint} {advice(body)}".rstrip()))
