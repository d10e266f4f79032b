"""Reads the parameters of the current request: query string, form, multipart or JSON."""
from __future__ import annotations

import email.parser
import email.policy
import json
from typing import Any
from urllib.parse import parse_qsl

from chalice.app import Request

from chalicelib.core.errors import ApiError
from chalicelib.core.files import UploadedFile
from chalicelib.rules.json_values import MAX_JSON_DEPTH, MAX_JSON_LENGTH


def request_params(request: Request) -> dict[str, Any]:
    """Every parameter the client sent; body values win over query-string values."""
    params: dict[str, Any] = {}
    if request.query_params:
        for key in request.query_params:
            params[key] = request.query_params[key]
    body = request.raw_body or b""
    if isinstance(body, str):
        body = body.encode()
    if body:
        params.update(_body_params(request.headers.get("content-type", ""), body))
    return params


def _body_params(content_type: str, body: bytes) -> dict[str, Any]:
    kind = content_type.split(";", maxsplit=1)[0].strip().lower()
    if kind == "application/json":
        if len(body) > MAX_JSON_LENGTH:
            raise ApiError(f"The JSON request body is too long (limit: {MAX_JSON_LENGTH} "
                           "bytes).")
        try:
            decoded = json.loads(body)
        except RecursionError:
            raise ApiError(f"The JSON request body is nested too deeply (limit: "
                           f"{MAX_JSON_DEPTH} levels).") from None
        except ValueError:
            raise ApiError("Malformed JSON in the request body") from None
        if not isinstance(decoded, dict):
            raise ApiError("The JSON request body must be an object")
        return decoded
    if kind == "multipart/form-data":
        return _multipart_params(content_type, body)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError("The request body is not valid UTF-8") from None
    return dict(parse_qsl(text, keep_blank_values=True))


def _multipart_params(content_type: str, body: bytes) -> dict[str, Any]:
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not message.is_multipart():
        raise ApiError("Malformed multipart body")
    params: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name or not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):   # decode=True gives bytes for a leaf part
            payload = b""
        filename = part.get_filename()
        if filename is not None:
            # The header as sent ("" without one): get_content_type() would call a
            # missing or unreadable type text/plain, which the browser then shows.
            params[name] = UploadedFile(filename, str(part.get("Content-Type", "")), payload)
        else:
            params[name] = payload.decode("utf-8", errors="replace")
    return params


def request_host(request: Request) -> str:
    return (request.headers.get("x-forwarded-host") or request.headers.get("host") or "").lower()
