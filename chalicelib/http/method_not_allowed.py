"""405 for a method no route of a served path has, as the reference answers it.

API Gateway only invokes the function for methods a resource defines, so every served
path also gets a small route for each method it does not serve (`add_method_fallbacks`,
called once `app.py` has registered everything); Chalice's own 405 (a method it never
routes, such as TRACE on the local server) is given the same envelope by the middleware.
"""
from __future__ import annotations

import re
from typing import Any

from chalice.app import Chalice, Request, Response

from chalicelib.core.errors import ApiError, ResourceNotFoundError
from chalicelib.http.params import ParamSpec, param_specs, parse_value
from chalicelib.http.response import json_error

FALLBACK_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
ANY_CONTENT = ["application/json", "application/x-www-form-urlencoded",
               "multipart/form-data", "application/octet-stream", "text/plain"]


def method_not_allowed(allowed: list[str]) -> Response:
    """The reference's 405: the methods the path serves, in the body and `Allow`."""
    methods = sorted(set(allowed))
    response = json_error(ApiError("Method not allowed", http_status=405,
                                   allowed_methods=methods))
    response.headers["Allow"] = ", ".join(methods)
    return response


# Each API path's served methods (before the fallbacks), for Chalice's own 405s.
_SERVED: dict[str, list[str]] = {}


def served_methods(request: Request) -> list[str]:
    path = (request.context or {}).get("resourcePath", "")
    return _SERVED.get(path, [])


def _path_specs(path: str, entries: dict[str, Any]) -> list[ParamSpec]:
    """The path parameters as a served view of the path types them."""
    names = set(re.findall(r"{(\w+)}", path))
    for entry in entries.values():
        view = getattr(entry.view_function, "__wrapped__", None)
        if view is not None and names:
            return [s for s in param_specs(view, names) if s.in_path]
    return []


def add_method_fallbacks(app: Chalice) -> int:
    """Routes every method a served path lacks to a 405; returns how many it added."""
    added = 0
    for path, entries in list(app.routes.items()):
        served = sorted(entries)
        _SERVED[path] = served
        missing = [m for m in FALLBACK_METHODS if m not in entries]
        if not missing or not path.startswith("/api/"):
            continue

        typed = _path_specs(path, entries)

        def view(*_: Any, allowed: list[str] = served, specs: list[ParamSpec] = typed,
                 **values: Any) -> Response:
            # A path parameter not of its type ("/messages/render" as a message id)
            # means no route serves the path at all: 404, as for the served methods.
            try:
                for spec in specs:
                    parse_value(spec, values[spec.name])
            except (ApiError, KeyError):
                return json_error(ResourceNotFoundError())
            return method_not_allowed(allowed)

        view.__name__ = "method_not_allowed_" + str(added)
        app.route(path, methods=missing, content_types=ANY_CONTENT)(view)
        added += 1
    return added
