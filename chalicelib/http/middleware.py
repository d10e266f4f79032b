"""Request logging, Chalice's own errors rewritten into the API's envelope, and the
headers every answer carries."""
from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from chalice.app import Chalice, Request, Response

from chalicelib.aws import metrics
from chalicelib.aws.log import logger
from chalicelib.core.errors import (
    ApiError,
    ErrorCode,
    InternalServerError,
)
from chalicelib.http.compression import fitted
from chalicelib.http.faults import error_for_exception
from chalicelib.http.method_not_allowed import method_not_allowed, served_methods
from chalicelib.http.response import json_error

# Chalice's error codes and the envelope codes a client of this API expects.
_CHALICE_ERRORS = {
    404: (ErrorCode.NOT_FOUND, "Endpoint not found"),
    415: (ErrorCode.BAD_REQUEST, "Unsupported media type"),
    413: (ErrorCode.BAD_REQUEST, "Request entity too large"),
    400: (ErrorCode.BAD_REQUEST, "Bad request"),
}


def register_middleware(app: Chalice) -> None:
    @app.middleware("http")
    def log_and_envelope(event: Request, get_response: Callable[[Request], Response]
                         ) -> Response:
        started = time.perf_counter()
        # API Gateway gives each request an id; chalice local does not: make one.
        request_id = getattr(event.context, "get", lambda *_: None)("requestId") or \
            uuid.uuid4().hex
        logger.append_keys(request_id=request_id, path=event.path, method=event.method)
        try:
            response = get_response(event)
        except Exception as error:  # noqa: BLE001 - the last line of defence: never a bare 500
            response = json_error(error_for_exception(error))
        if response.status_code == 405 and _is_chalice_error(response):
            response = method_not_allowed(served_methods(event))
        response = _envelope_chalice_error(response)
        if response.status_code == 401:
            _no_browser_dialog(event, response)
        response = fitted(response, event.headers)
        # No answer is ever to be read as another type than it declares (an error's
        # JSON quoting a client's text as HTML, say).
        response.headers["X-Content-Type-Options"] = "nosniff"
        if response.status_code >= 500:   # every 5xx the API answers passes here
            metrics.count_server_error(response.status_code)
        logger.info("request", extra={"status": response.status_code,
                                      "duration_ms": round((time.perf_counter() - started)
                                                           * 1000, 1)})
        logger.remove_keys(["realm_id", "user_id", "request_id", "path", "method"])
        return response


def _no_browser_dialog(event: Request, response: Response) -> None:
    """A script's request (marked `X-Requested-With: XMLHttpRequest`, as browser clients
    mark theirs) gets its 401 with a challenge of another scheme than Basic: a Basic one
    makes the browser put its own login dialog over the page (the reference names such
    a scheme "Session" for its browser paths)."""
    if (event.headers.get("x-requested-with") or "").lower() == "xmlhttprequest" and \
            "WWW-Authenticate" in response.headers:
        response.headers["WWW-Authenticate"] = 'Session realm="teamchat"'


def _is_chalice_error(response: Response) -> bool:
    body: Any = response.body
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return False
    return isinstance(body, dict) and "Code" in body


def _envelope_chalice_error(response: Response) -> Response:
    """Chalice answers routing errors as {"Code", "Message"}; give them our envelope."""
    body: Any = response.body
    if response.status_code < 400 or not isinstance(body, (dict, str)):
        return response
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return response
    if not isinstance(body, dict) or "Code" not in body:
        return response
    if response.status_code >= 500:
        # Chalice caught an exception outside our views (it logged the traceback).
        return json_error(InternalServerError(
            str(logger.get_current_keys().get("request_id", "-"))))
    code, msg = _CHALICE_ERRORS.get(response.status_code, (ErrorCode.BAD_REQUEST, "Bad request"))
    detail = body.get("Message")
    return json_error(ApiError(f"{msg}: {detail}" if detail else msg, code=code,
                               http_status=response.status_code))
