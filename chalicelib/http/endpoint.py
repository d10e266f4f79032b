"""Blueprints whose views declare typed parameters and get the caller and the envelope."""
from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from typing import Any

from chalice.app import Blueprint, Response

from chalicelib.core.errors import ApiError
from chalicelib.core.files import UploadedFile
from chalicelib.http.auth import authenticate
from chalicelib.http.faults import error_for_exception
from chalicelib.http.params import param_specs, parse_params
from chalicelib.http.request import request_params
from chalicelib.http.response import json_error, json_success
from chalicelib.lib.log import logger

# Parameters arrive form-encoded, as multipart or as JSON: accept every media type
# and parse the body ourselves (Chalice would answer 415 for anything but JSON).
ANY_CONTENT_TYPE = ["*/*"]
PATH_PARAM = re.compile(r"{(\w+)}")
# A view parameter of this name receives every uploaded file, whatever its field name.
FILES_PARAM = "uploaded_files"


class ApiBlueprint(Blueprint):
    """A Chalice blueprint with `endpoint`, which wires a typed view to a route."""

    def endpoint(self, path: str, method: str, *, public: bool = False,
                 ) -> Callable[[Callable[..., Any]], Callable[..., Response]]:
        path_names = set(PATH_PARAM.findall(path))

        def decorate(view: Callable[..., Any]) -> Callable[..., Response]:
            takes_files = FILES_PARAM in inspect.signature(view).parameters
            specs = [s for s in param_specs(view, path_names) if s.name != FILES_PARAM]
            takes_caller = not public and _first_positional(view) is not None

            @functools.wraps(view)
            def handler(**path_values: str) -> Response:
                try:
                    request = self.current_request
                    caller = None if public else authenticate(request.headers.get("authorization"))
                    if caller is not None:
                        logger.append_keys(realm_id=caller.realm_id, user_id=caller.user_id)
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
                    return json_error(error)
                except Exception as error:  # noqa: BLE001 - answered as 503 or a logged 500
                    return json_error(error_for_exception(error))
                if isinstance(result, Response):
                    return result
                return json_success(result, ignored)

            handler.__signature__ = inspect.Signature()  # type: ignore[attr-defined]
            # Read by the OpenAPI generator, with the view itself (`__wrapped__`).
            handler.public = public  # type: ignore[attr-defined]
            self.route(path, methods=[method], content_types=ANY_CONTENT_TYPE)(handler)
            return handler

        return decorate


def _first_positional(view: Callable[..., Any]) -> str | None:
    for name, param in inspect.signature(view).parameters.items():
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            return name
    return None
