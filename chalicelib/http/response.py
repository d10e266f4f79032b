"""The success and error envelopes, rendered in one place."""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

from chalice.app import Response

from chalicelib.core.errors import ApiError

JSON_HEADERS = {"Content-Type": "application/json"}


class SuccessEnvelope(TypedDict):
    """The keys every success response carries besides the endpoint's own."""

    result: Literal["success"]
    msg: str
    ignored_parameters_unsupported: NotRequired[list[str]]


def json_response(body: dict[str, Any], status: int = 200,
                  headers: dict[str, str] | None = None) -> Response:
    return Response(body=json.dumps(body, separators=(",", ":")), status_code=status,
                    headers={**JSON_HEADERS, **(headers or {})})


def json_success(data: Mapping[str, Any] | None = None,
                 ignored: list[str] | None = None) -> Response:
    body: dict[str, Any] = {"result": "success", "msg": ""}
    if data:
        body.update(data)
    if ignored:
        body["ignored_parameters_unsupported"] = ignored
    return json_response(body)


def json_error(error: ApiError) -> Response:
    return json_response(error.to_dict(), error.http_status, error.headers)
