"""Blueprints whose views declare typed parameters and get the caller and the envelope."""
from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from typing import Any

from chalice.app import Blueprint, Response

from chalicelib import config
from chalicelib.aws.deadline import request_deadline
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.core.files import UploadedFile
from chalicelib.http.auth import api_key_read
from chalicelib.http.faults import error_for_exception
from chalicelib.http.params import param_specs, parse_params
from chalicelib.http.rate_limits import (
    authenticate_limited,
    limit_request,
    source_ip,
)
from chalicelib.http.request import request_params
from chalicelib.http.response import json_error, json_success
from chalicelib.models.read_ahead import ReadAhead, read_ahead
from chalicelib.models.users import BOT_TYPE_INCOMING_WEBHOOK

# Parameters arrive form-encoded, as multipart or as JSON: accept every media type
# and parse the body ourselves (Chalice would answer 415 for anything but JSON).
ANY_CONTENT_TYPE = ["*/*"]
PATH_PARAM = re.compile(r"{(\w+)}")
# A view parameter of this name receives every uploaded file, whatever its field name.
FILES_PARAM = "uploaded_files"


class ApiBlueprint(Blueprint):
    """A Chalice blueprint with `endpoint`, which wires a typed view to a route."""

    def endpoint(self, path: str, method: str, *, public: bool = False,
                 rate_limit: str | None = None,
                 reads_with_caller: Callable[[Mapping[str, Any]], list[ReadAhead]] | None = None,
                 allow_incoming_webhooks: bool = False,
                 ) -> Callable[[Callable[..., Any]], Callable[..., Response]]:
        """`rate_limit` names a rule (rules/rate_limits.py) counted per caller besides the
        API limit, for requests that cost more (none does now). `reads_with_caller`
        names, from the query string, items the view will read first: they are read in
        one BatchGetItem with the caller's API key (models/read_ahead.py). An incoming-
        webhook bot's key is refused unless `allow_incoming_webhooks` (POST /messages), as
        the reference refuses it: its URL is pasted into other tools."""
        path_names = set(PATH_PARAM.findall(path))

        def decorate(view: Callable[..., Any]) -> Callable[..., Response]:
            takes_files = FILES_PARAM in inspect.signature(view).parameters
            specs = [s for s in param_specs(view, path_names) if s.name != FILES_PARAM]
            takes_caller = not public and _first_positional(view) is not None

            @functools.wraps(view)
            def handler(**path_values: str) -> Response:
                request = self.current_request
                header = request.headers.get("authorization")
                ahead = [] if public or reads_with_caller is None else [
                    key for key in [api_key_read(header),
                                    *reads_with_caller(request.query_params or {})]
                    if key is not None]
                try:
                    with request_deadline(seconds_left(request)), \
                            read_ahead(ahead) if len(ahead) > 1 else nullcontext():
                        return respond(request, header, path_values)
                except Exception as error:  # noqa: BLE001 - the read ahead failed: as below
                    return json_error(error_for_exception(error))

            def respond(request: Any, header: str | None, path_values: dict[str, str]
                        ) -> Response:
                limit_headers: dict[str, str] = {}
                try:
                    caller = None if public else authenticate_limited(
                        header, source_ip(request.context))
                    if caller is not None:
                        logger.append_keys(realm_id=caller.realm_id, user_id=caller.user_id)
                        limit_headers = limit_request(caller, rate_limit)
                        if caller.bot_type == BOT_TYPE_INCOMING_WEBHOOK and \
                                not allow_incoming_webhooks:
                            raise ApiError("This endpoint is not open to incoming webhook "
                                           "bots.")
                    supplied = request_params(request)
                    if takes_files:
                        files = [v for v in supplied.values() if isinstance(v, UploadedFile)]
                        supplied = {k: v for k, v in supplied.items()
                                    if not isinstance(v, UploadedFile)}
                    values, ignored = parse_params(specs, supplied, path_values)
                    if takes_files:
                        values[FILES_PARAM] = files
                    args = (caller,) if takes_caller else ()
                    result = view(*args, **values)
                except ApiError as error:
                    response = json_error(error)
                except Exception as error:  # noqa: BLE001 - answered as 503 or a logged 500
                    response = json_error(error_for_exception(error))
                else:
                    response = result if isinstance(result, Response) else \
                        json_success(result, ignored)
                for name, value in limit_headers.items():   # an error's own headers win
                    response.headers.setdefault(name, value)
                return response

            handler.__signature__ = inspect.Signature()  # type: ignore[attr-defined]
            # Read by the OpenAPI generator, with the view itself (`__wrapped__`).
            handler.public = public  # type: ignore[attr-defined]
            self.route(path, methods=[method], content_types=ANY_CONTENT_TYPE)(handler)
            return handler

        return decorate


def seconds_left(request: Any) -> float:
    """The request's time: the configured budget, or less when the function has less
    left (a second kept to answer)."""
    budget = config.request_seconds()
    context = getattr(request, "lambda_context", None)
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if callable(remaining):
        budget = min(budget, max(remaining() / 1000 - 1, 0.5))
    return budget


def _first_positional(view: Callable[..., Any]) -> str | None:
    for name, param in inspect.signature(view).parameters.items():
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            return name
    return None
