"""The OpenAPI 3.1 document, generated from the registered views and the declared types.

Paths come from `app.routes`: each handler made by `ApiBlueprint.endpoint` wraps its
view (`__wrapped__`), whose signature the request parser already reads (`param_specs`).
Response bodies come from the view's return annotation (a TypedDict beside its builder),
wrapped in the success envelope; errors share one envelope (`ErrorResult`). The events
`GET /events` returns are every TypedDict named `*Event` in `chalicelib`, as a `oneOf`.

Imported only by tests, `make openapi` and the view that serves the document.
"""
from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from chalice.app import Chalice, Response

import chalicelib
from chalicelib import config
from chalicelib.core.errors import ErrorResult
from chalicelib.core.feature_levels import (
    EXTENSIONS_PARAMETER,
    REALM_SETTINGS_CAPABILITY,
    WEBSOCKET_CAPABILITY,
    advertised_level,
)
from chalicelib.http.endpoint import FILES_PARAM, PATH_PARAM
from chalicelib.http.params import ParamSpec, param_specs
from chalicelib.http.response import SuccessEnvelope
from chalicelib.http.type_schemas import (
    QUEUE_EVENT_COMPONENT,
    JsonSchema,
    SchemaBuilder,
    typeddict_fields,
    where,
)
from chalicelib.http.webhooks import KEY_PARAM, TOOL_REQUEST_PARAM
from chalicelib.rules.json_values import non_none

# Announced on every authenticated answer (http/rate_limits.py); a 429 adds Retry-After.
RATE_LIMIT_HEADERS: JsonSchema = {
    "X-RateLimit-Limit": {"description": "Requests the caller may make in the current window.",
                          "schema": {"type": "integer"}},
    "X-RateLimit-Remaining": {"description": "Requests left in the current window.",
                              "schema": {"type": "integer"}},
    "X-RateLimit-Reset": {"description": "When the window ends (UNIX seconds).",
                          "schema": {"type": "integer"}},
}


# A tool's route: the bot's key in the query string (or HTTP Basic), the tool's payload
# as the body.
WEBHOOK_KEY: list[JsonSchema] = [{
    "name": KEY_PARAM, "in": "query", "required": False, "schema": {"type": "string"},
    "description": "The incoming-webhook bot's API key (else HTTP Basic credentials)."}]
WEBHOOK_BODY: JsonSchema = {
    "required": True, "description": "The tool's own payload.",
    "content": {"application/json": {"schema": {"type": "object"}},
                "application/x-www-form-urlencoded": {"schema": {
                    "type": "object", "properties": {"payload": {"type": "string"}}}}}}


class OpenApiError(Exception):
    """The views or types cannot be described: every problem found, one per line."""


# ---- events ----------------------------------------------------------------------------

def _chalicelib_modules() -> Iterator[types.ModuleType]:
    for info in pkgutil.walk_packages(chalicelib.__path__, "chalicelib."):
        if info.name == "chalicelib.admin":   # a command line, not code the API runs
            continue
        yield importlib.import_module(info.name)


def event_types() -> list[type]:
    """Every TypedDict named `*Event` in chalicelib, in a stable order."""
    found: dict[str, type] = {}
    for module in _chalicelib_modules():
        for name, value in vars(module).items():
            if (name.endswith("Event") and typing.is_typeddict(value)
                    and value.__module__ == module.__name__):
                found[f"{value.__module__}.{name}"] = value
    return [found[key] for key in sorted(found, key=lambda k: k.rsplit(".", 1)[1])]


def _literal_value(td: type, key: str) -> Any:
    tp = typeddict_fields(td).get(key, (None, False))[0]
    if get_origin(tp) is Literal and len(get_args(tp)) == 1:
        return get_args(tp)[0]
    return None


def _check_events(events: list[type]) -> list[str]:
    """Each event needs a literal `type`; events that share type and op must differ in a
    required key the other cannot have, so that exactly one of the `oneOf` matches."""
    problems = []
    groups: dict[tuple[Any, Any], list[type]] = {}
    for event in events:
        kind = _literal_value(event, "type")
        if kind is None:
            problems.append(f"{where(event)} has no `type: Literal[...]`")
            continue
        groups.setdefault((kind, _literal_value(event, "op")), []).append(event)
    for (kind, op), members in groups.items():
        for first in members:
            for second in members:
                if first is second:
                    continue
                keys = typeddict_fields(first)
                own = {k for k, (_, req) in keys.items() if req} - set(
                    typeddict_fields(second))
                if not own:
                    problems.append(f"{where(first)} and {where(second)} (type {kind!r}, "
                                    f"op {op!r}) can describe the same event")
    return problems


# ---- paths -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Operation:
    path: str
    method: str
    view: Callable[..., Any]
    public: bool
    takes_files: bool
    webhook: bool = False   # a tool's route (http/webhooks.py)


def operations(app: Chalice) -> list[Operation]:
    """Every route that `ApiBlueprint.endpoint` made, in path and method order."""
    found = []
    for path, methods in app.routes.items():
        for method, entry in methods.items():
            handler = entry.view_function
            view = getattr(handler, "__wrapped__", None)
            if view is None or not hasattr(handler, "public"):
                continue   # not an API view (the document and its docs page)
            takes_files = FILES_PARAM in inspect.signature(view).parameters
            found.append(Operation(path, method.upper(), view, bool(handler.public),
                                   takes_files, bool(getattr(handler, "webhook", False))))
    return sorted(found, key=lambda o: (o.path, _METHOD_ORDER.index(o.method)))


_METHOD_ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def operation_id(view: Callable[..., Any]) -> str:
    return view.__name__.replace("_", "-")


class DocumentBuilder:
    def __init__(self, app: Chalice) -> None:
        self.app = app
        self.types = SchemaBuilder()
        self.results = self.types.results

    @property
    def problems(self) -> list[str]:
        return self.types.components.problems

    def build(self) -> JsonSchema:
        components = self.types.components
        components.claim("ErrorResult", ErrorResult)
        components.schemas["ErrorResult"] = self.types.object_schema(ErrorResult)
        self._events()
        paths: dict[str, dict[str, Any]] = {}
        seen_ids: dict[str, str] = {}
        for op in operations(self.app):
            ident = operation_id(op.view)
            if ident in seen_ids:
                self.problems.append(f"operationId {ident} of {op.method} {op.path} is "
                                     f"already used by {seen_ids[ident]}")
            seen_ids[ident] = f"{op.method} {op.path}"
            paths.setdefault(op.path, {})[op.method.lower()] = self._operation(op)
        if self.problems:
            raise OpenApiError("\n".join(sorted(set(self.problems))))
        return {
            "openapi": "3.1.0",
            "info": {
                "title": "teamchat REST API",
                "version": f"{config.SERVICE_VERSION} (feature level "
                           f"{advertised_level()})",
                "description": _DESCRIPTION,
            },
            # Relative to where the document is served ({base}/api/v1/openapi.json).
            "servers": [{"url": "../..", "description": "the server that serves this "
                                                        "document"}],
            "security": [{"basicAuth": []}],
            "tags": sorted(({"name": t} for t in {o["tags"][0] for p in paths.values()
                                                  for o in p.values()}),
                           key=lambda t: t["name"]),
            "paths": paths,
            "components": {
                "schemas": dict(sorted(components.schemas.items())),
                "headers": RATE_LIMIT_HEADERS,
                "securitySchemes": {"basicAuth": {
                    "type": "http", "scheme": "basic",
                    "description": "The account's email as user name, its API key as "
                                   "password."}},
            },
        }

    def _events(self) -> None:
        events = event_types()
        self.problems.extend(_check_events(events))
        refs = []
        for event in events:
            name = event.__name__
            if self.types.components.claim(name, event):
                self.types.components.schemas[name] = self.types.object_schema(
                    event, {"id": ({"type": "integer"}, True)})
            refs.append(self.types.components.ref(name))
        self.types.components.schemas[QUEUE_EVENT_COMPONENT] = {
            "description": "An event as GET /events returns it: one of the shapes below, "
                           "with the `id` its queue gave it.",
            "oneOf": refs}

    def _operation(self, op: Operation) -> JsonSchema:
        where = f"{op.method} {op.path}"
        path_names = set(PATH_PARAM.findall(op.path))
        specs = [s for s in param_specs(op.view, path_names)
                 if s.name not in (FILES_PARAM, TOOL_REQUEST_PARAM)]
        operation: JsonSchema = {
            "operationId": operation_id(op.view),
            "summary": _summary(op.view),
            "tags": [op.view.__module__.rsplit(".", 1)[-1]],
        }
        description = inspect.getdoc(op.view)
        if description:
            operation["description"] = description
        if op.public:
            operation["security"] = []
        parameters = [self._parameter(s, "path") for s in specs if s.in_path]
        rest = [s for s in specs if not s.in_path]
        if op.webhook:
            parameters += [*WEBHOOK_KEY, *(self._parameter(s, "query") for s in rest)]
            operation["requestBody"] = WEBHOOK_BODY
            operation["security"] = [{}, {"basicAuth": []}]
        elif op.method == "GET":
            parameters += [self._parameter(s, "query") for s in rest]
        elif rest or op.takes_files:
            operation["requestBody"] = self._body(rest, op.takes_files)
        if parameters:
            operation["parameters"] = parameters
        operation["responses"] = self._responses(op.view, where)
        if op.webhook:   # an event the integration ignores: 200, in the error envelope
            ok = operation["responses"]["200"]["content"]["application/json"]
            ok["schema"] = {"anyOf": [ok["schema"], self.types.components.ref("ErrorResult")]}
        if not op.public:
            for response in operation["responses"].values():
                response["headers"] = {**response.get("headers", {}), **{
                    name: {"$ref": f"#/components/headers/{name}"}
                    for name in RATE_LIMIT_HEADERS}}
        return operation

    def _param_schema(self, spec: ParamSpec) -> JsonSchema:
        """`X | None = None` means "optional": None stands for "not sent", so the
        schema is X's; a null the client may send has another default (a marker)."""
        annotation = spec.annotation
        if not spec.required and spec.default is None:
            annotation = non_none(annotation)
        return self._with_default(self.types.schema(annotation), spec)

    def _parameter(self, spec: ParamSpec, location: str) -> JsonSchema:
        schema = self._param_schema(spec)
        parameter: JsonSchema = {"name": spec.wire_name, "in": location,
                                 "required": spec.required or location == "path"}
        if spec.json and location == "query":
            parameter["content"] = {"application/json": {"schema": schema}}
        else:
            parameter["schema"] = schema
        return parameter

    def _with_default(self, schema: JsonSchema, spec: ParamSpec) -> JsonSchema:
        if spec.required or spec.default is None or not _is_json(spec.default):
            return schema
        if "$ref" in schema:
            return {"allOf": [schema], "default": spec.default}
        return {**schema, "default": spec.default}

    def _body(self, specs: list[ParamSpec], takes_files: bool) -> JsonSchema:
        properties = {s.wire_name: self._param_schema(s) for s in specs}
        required = [s.wire_name for s in specs if s.required]
        schema: JsonSchema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        # JSON-encoded form values (lists, objects, booleans), as the official client sends.
        encoding = {s.wire_name: {"contentType": "application/json"} for s in specs if s.json}
        if takes_files:
            files = {**schema, "properties": {
                **properties, "file": {"type": "string", "format": "binary",
                                       "description": "The file (any field name)."}}}
            media: JsonSchema = {"multipart/form-data": {"schema": files}}
        else:
            media = {"application/x-www-form-urlencoded": {"schema": schema}}
        if encoding:
            for content in media.values():
                content["encoding"] = encoding
        return {"required": bool(required) or takes_files, "content": media}

    def _responses(self, view: Callable[..., Any], where: str) -> JsonSchema:
        envelope = {"application/json": {"schema": self.types.components.ref("ErrorResult")}}
        error = {"description": "An error, in the error envelope.", "content": envelope}
        # A 5XX is a bug (the property-based run looks for them); it is still an envelope.
        server_error = {"description": "An unexpected server error, in the error envelope.",
                        "content": envelope}
        result = typing.get_type_hints(view).get("return")
        if result is Response:
            return {"302": {"description": "A redirect to a short-lived link to the file.",
                            "headers": {"Location": {"schema": {"type": "string"}}}},
                    "4XX": error, "5XX": server_error}
        # A union of results: e.g. GET /events, which registers a queue when given none.
        members = get_args(result) if get_origin(result) in (Union, types.UnionType) else (
            result,)
        if not members or not all(typing.is_typeddict(m) for m in members):
            self.problems.append(f"{where}: the view {view.__module__}.{view.__name__} "
                                 f"declares no result TypedDict (returns {result!r})")
            return {"4XX": error, "5XX": server_error}
        refs = [self._result(member) for member in members]
        return {"200": {"description": "Success, in the success envelope.",
                        "content": {"application/json": {
                            "schema": refs[0] if len(refs) == 1 else {"anyOf": refs}}}},
                "4XX": error, "5XX": server_error}

    def _result(self, result: type) -> JsonSchema:
        """A view's result TypedDict as its own component, inside the success envelope."""
        name = result.__name__
        if result not in self.results and name in self.types.components.schemas:
            self.problems.append(f"{where(result)} is a view's result and also part of "
                                 "another shape: give the view a result type of its own")
        self.results.add(result)
        if self.types.components.claim(name, result):
            envelope = {key: (self.types.schema(tp), req)
                        for key, (tp, req) in typeddict_fields(SuccessEnvelope).items()}
            self.types.components.schemas[name] = self.types.object_schema(result, envelope)
        return self.types.components.ref(name)


def _summary(view: Callable[..., Any]) -> str:
    words = view.__name__.replace("_", " ")
    return words[0].upper() + words[1:]


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except TypeError:
        return False
    return True


_DESCRIPTION = f"""\
A threaded team-chat server with a JSON REST API.

Parameters travel form-encoded: in the query string for GET, in the body otherwise.
Lists, objects and booleans are JSON-encoded inside the form value. Every response is a
JSON object: `result` is `success` (with `msg` empty and the fields below) or `error`
(with `msg` and a machine-readable `code`). Unsupported parameters are listed in
`ignored_parameters_unsupported`.

Authentication is HTTP Basic with the account's email and API key, on every endpoint
except `GET /api/v1/server_settings` and the links that emails carry. This document is
generated from the server's code (`make openapi`).

The feature level is the reference's, computed from the table in
`docs/feature-levels.md`. This server's own extensions are sent only to a client that
asks for them: `event_queue_websocket_url` (where the WebSocket push channel is served)
in `POST /register` with the client capability `{WEBSOCKET_CAPABILITY}`, and in
`GET /server_settings` with `{EXTENSIONS_PARAMETER}=true`; `realm` `update_dict` events
for the organization setting `empty_topic_display_name` with the client capability
`{REALM_SETTINGS_CAPABILITY}`."""


def openapi_document(app: Chalice) -> JsonSchema:
    """The document for `app`; raises OpenApiError listing every view or type it cannot
    describe (a view without a declared result, two types of one name, ...)."""
    document = DocumentBuilder(app).build()
    text = json.dumps(document)
    if re.search("zulip", text, re.IGNORECASE):
        raise OpenApiError("the document names the reference's brand: apply the naming rule")
    return document


def render(document: JsonSchema) -> str:
    """The document as the committed file holds it: stable key order, one trailing newline."""
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"

