"""Compares the generated OpenAPI document with the reference's, operation by operation.

The reference (`../shared/reference/zulip-openapi.yaml`) is read with the naming rule
applied (the brand becomes `service`). For each operation both declare, the differences
in parameters (name, place, required, type) and in the success response's top-level
fields (name, type) are listed as `METHOD /path: kind name (detail)`.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from tests.reference_schema import reference_path

API_PREFIX = "/api/v1"
ENVELOPE = {"result", "msg", "ignored_parameters_unsupported"}


def load_reference(path: Path | None = None) -> dict[str, Any]:
    """The reference document (`tests/reference_schema.py` finds it), renamed."""
    path = path or reference_path()
    text = path.read_text(encoding="utf-8")
    # The naming rule: identifiers that carry the brand carry `service` instead.
    text = re.sub("zulip", "service", text)
    text = re.sub("Zulip", "Service", text)
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


class _Resolver:
    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def deref(self, node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 20:
            target: Any = self.document
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node, seen = target, seen + 1
        return node

    def properties(self, schema: Any) -> dict[str, Any]:
        """An object schema's properties, through $ref, allOf, oneOf and anyOf."""
        schema = self.deref(schema)
        if not isinstance(schema, dict):
            return {}
        found: dict[str, Any] = {}
        for part in schema.get("allOf", []) + schema.get("oneOf", []) + schema.get("anyOf", []):
            found.update(self.properties(part))
        found.update(schema.get("properties") or {})
        return found

    def types(self, schema: Any) -> frozenset[str]:
        """The JSON types a schema allows (null left out: nullability is not compared)."""
        schema = self.deref(schema)
        if not isinstance(schema, dict):
            return frozenset()
        kinds: set[str] = set()
        declared = schema.get("type")
        if isinstance(declared, str):
            kinds.add(declared)
        elif isinstance(declared, list):
            kinds.update(declared)
        for key in ("allOf", "oneOf", "anyOf"):
            for part in schema.get(key, []):
                kinds |= self.types(part)
        if "enum" in schema and not kinds:
            kinds |= {_json_type(v) for v in schema["enum"]}
        if "properties" in schema or "additionalProperties" in schema:
            kinds.add("object")
        kinds.discard("null")
        return frozenset(kinds)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, str):
        return "string"
    return "null" if value is None else type(value).__name__


def _parameters(resolver: _Resolver, operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{name: {place, required, types}} from parameters and the form body."""
    found: dict[str, dict[str, Any]] = {}
    for parameter in operation.get("parameters", []):
        parameter = resolver.deref(parameter)
        schema = parameter.get("schema")
        if schema is None:
            media: dict[str, Any] = next(iter((parameter.get("content") or {}).values()), {})
            schema = media.get("schema")
        found[parameter["name"]] = {"place": parameter["in"],
                                    "required": bool(parameter.get("required")),
                                    "types": resolver.types(schema)}
    body = resolver.deref(operation.get("requestBody") or {})
    for media in (body.get("content") or {}).values():
        schema = resolver.deref(media.get("schema") or {})
        required = set(schema.get("required") or [])
        for name, prop in resolver.properties(schema).items():
            if name == "file":   # the upload itself, not a parameter
                continue
            found.setdefault(name, {"place": "body", "required": name in required,
                                    "types": resolver.types(prop)})
    return found


def _success_fields(resolver: _Resolver, operation: dict[str, Any]
                    ) -> tuple[dict[str, Any], bool] | None:
    """The success response's fields and whether it is closed (declares all of them)."""
    response = resolver.deref((operation.get("responses") or {}).get("200") or {})
    media = (response.get("content") or {}).get("application/json")
    if media is None:
        return None
    schema = resolver.deref(media.get("schema") or {})
    fields = resolver.properties(schema)
    closed = all(resolver.deref(s).get("additionalProperties") is False
                 for s in schema.get("anyOf", [schema]))
    return ({name: resolver.types(schema) for name, schema in fields.items()
             if name not in ENVELOPE}, closed)


def operations(document: dict[str, Any], prefix: str = ""
               ) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete") and \
                    path.startswith(prefix):
                yield method.upper(), path[len(prefix):], operation


def differences(ours: dict[str, Any], reference: dict[str, Any]
                ) -> dict[str, list[str]]:
    """{"METHOD /path": [difference, ...]} for every operation both documents declare."""
    mine, theirs = _Resolver(ours), _Resolver(reference)
    reference_ops = {(m, p): op for m, p, op in operations(reference)}
    found: dict[str, list[str]] = {}
    for method, path, operation in operations(ours, API_PREFIX):
        other = reference_ops.get((method, path))
        if other is None:
            continue
        listed: list[str] = []
        ours_params, ref_params = _parameters(mine, operation), _parameters(theirs, other)
        for name in sorted(set(ours_params) | set(ref_params)):
            if name not in ref_params:
                listed.append(f"parameter only here: {name}")
            elif name not in ours_params:
                listed.append(f"parameter only in the reference: {name}")
            else:
                a, b = ours_params[name], ref_params[name]
                if a["required"] != b["required"]:
                    listed.append(f"parameter {name}: required here {a['required']}, "
                                  f"in the reference {b['required']}")
                if a["types"] and b["types"] and not a["types"] & b["types"]:
                    listed.append(f"parameter {name}: type {sorted(a['types'])} here, "
                                  f"{sorted(b['types'])} in the reference")
        ours_result, ref_result = _success_fields(mine, operation), _success_fields(
            theirs, other)
        if ours_result is not None and ref_result is not None:
            (ours_fields, closed), (ref_fields, _) = ours_result, ref_result
            for name in sorted(set(ours_fields) | set(ref_fields)):
                if name not in ref_fields:
                    listed.append(f"response field only here: {name}")
                elif name not in ours_fields:
                    if closed:   # an open result (POST /register's state) may have it
                        listed.append(f"response field only in the reference: {name}")
                elif ours_fields[name] and ref_fields[name] and \
                        not ours_fields[name] & ref_fields[name]:
                    listed.append(f"response field {name}: type {sorted(ours_fields[name])}"
                                  f" here, {sorted(ref_fields[name])} in the reference")
        found[f"{method} {path}"] = listed
    return found
