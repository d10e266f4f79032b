"""Routes that tools post to (`/external/{integration}`): the body is the tool's own
payload, so parameters come from the query string only (a payload's `topic` must not
become the message's); the caller is the bot whose key is the URL's `api_key` (or HTTP
Basic credentials). Otherwise as `ApiBlueprint.endpoint`: the same rate limits,
deadline and envelopes."""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from chalice.app import Blueprint, Request, Response

from chalicelib.aws.deadline import request_deadline
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError, ErrorCode, UnauthorizedError, missing_argument
from chalicelib.core.principal import Principal
from chalicelib.core.tool_requests import ToolRequest
from chalicelib.http.auth import authenticate_key
from chalicelib.http.endpoint import ANY_CONTENT_TYPE, PATH_PARAM, seconds_left
from chalicelib.http.faults import error_for_exception
from chalicelib.http.params import param_specs, parse_params
from chalicelib.http.rate_limits import authenticate_limited, limit_request, source_ip
from chalicelib.http.response import json_error, json_success
from chalicelib.models.rate_limits import record_auth_failure

KEY_PARAM = "api_key"
TOOL_REQUEST_PARAM = "tool_request"


def webhook_endpoint(bp: Blueprint, path: str
                     ) -> Callable[[Callable[..., Any]], Callable[..., Response]]:
    """Wires `view(caller, *, tool_request: ToolRequest, <typed query parameters>)`."""
    path_names = set(PATH_PARAM.findall(path))

    def decorate(view: Callable[..., Any]) -> Callable[..., Response]:
        specs = [s for s in param_specs(view, path_names) if s.name != TOOL_REQUEST_PARAM]
        declared = {s.wire_name for s in specs} | {KEY_PARAM}

        @functools.wraps(view)
        def handler(**path_values: str) -> Response:
            request = bp.current_request
            try:
                with request_deadline(seconds_left(request)):
                    return respond(request, path_values)
            except Exception as error:  # noqa: BLE001 - answered as 503 or a logged 500
                return json_error(error_for_exception(error))

        def respond(request: Request, path_values: dict[str, str]) -> Response:
            limit_headers: dict[str, str] = {}
            try:
                query = dict(request.query_params or {})
                caller = _caller(request, query.get(KEY_PARAM))
                logger.append_keys(realm_id=caller.realm_id, user_id=caller.user_id)
                limit_headers = limit_request(caller)
                values, _ = parse_params(specs, {k: v for k, v in query.items()
                                                 if k in declared}, path_values)
                values[TOOL_REQUEST_PARAM] = _tool_request(request, query, declared)
                result = view(caller, **values)
            except ApiError as error:
                response = json_error(error)
            except Exception as error:  # noqa: BLE001 - answered as 503 or a logged 500
                response = json_error(error_for_exception(error))
            else:
                response = json_success(result)
            for name, value in limit_headers.items():
                response.headers.setdefault(name, value)
            return response

        handler.__signature__ = inspect.Signature()  # type: ignore[attr-defined]
        # Read by the OpenAPI generator: a tool's route, with its view (`__wrapped__`).
        handler.public = False  # type: ignore[attr-defined]
        handler.webhook = True  # type: ignore[attr-defined]
        bp.route(path, methods=["POST"], content_types=ANY_CONTENT_TYPE)(handler)
        return handler

    return decorate


def _caller(request: Request, api_key: str | None) -> Principal:
    """The URL's `api_key`, else HTTP Basic credentials, as the reference accepts both."""
    ip = source_ip(request.context)
    if api_key is not None:
        try:
            caller, _ = authenticate_key(api_key)
        except UnauthorizedError as error:
            if error.code == ErrorCode.INVALID_API_KEY:
                # Counted against the address (and the key, which no one else sends).
                record_auth_failure(f"api-key:{api_key.strip()[:8]}", ip)
            raise
        return caller
    header = request.headers.get("authorization")
    if header is None:
        raise missing_argument(KEY_PARAM)
    return authenticate_limited(header, ip)


def _tool_request(request: Request, query: dict[str, str], declared: set[str]) -> ToolRequest:
    body = request.raw_body or b""
    if isinstance(body, str):
        body = body.encode()
    return ToolRequest(body=body, content_type=request.headers.get("content-type", ""),
                       headers={k.lower(): v for k, v in request.headers.items()},
                       options={k: v for k, v in query.items() if k not in declared})
