"""The public reference's POST /register response, read for tests.

Reads `../shared/reference/zulip-openapi.yaml` (found by walking up from the repository,
or named by REFERENCE_OPENAPI), folds its `$ref`/`allOf` layers into plain schemas, applies
the naming rule (the brand in an identifier becomes `service`), tells which fetch types
each top-level key belongs to (the reference says so in each key's description: "Present
if `X` is present in `fetch_event_types`"), and checks a response against the schema:
every listed key present, every value of the listed JSON type.
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any

import yaml

REFERENCE_NAME = "zulip-openapi.yaml"
_BRAND = "zulip"
_PRESENT_IF = re.compile(r"Present if `(\w+)`(?: and `(\w+)` are both)? (?:is )?present in")


def reference_path() -> Path:
    named = os.environ.get("REFERENCE_OPENAPI")
    if named:
        return Path(named)
    here = Path(__file__).resolve()
    # Beside the repository (../shared), or where this workplace keeps it for clones
    # made elsewhere (a fresh clone under /tmp, as CI makes).
    for parent in (*here.parents, Path("/work")):
        candidate = parent / "shared" / "reference" / REFERENCE_NAME
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"{REFERENCE_NAME} not found in ../shared/reference above {here.parent}; "
        "set REFERENCE_OPENAPI to its path")


@functools.cache
def _document() -> dict[str, Any]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with reference_path().open(encoding="utf-8") as handle:
        return yaml.load(handle, Loader=loader)


def renamed(name: str) -> str:
    """The naming rule: identifiers that would carry the brand carry `service`."""
    return name.replace(_BRAND, "service")


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = _document()
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def folded(schema: dict[str, Any]) -> dict[str, Any]:
    """One plain schema from `$ref` and `allOf` layers: later layers refine earlier ones
    (the reference re-lists a base object's properties to close it, often as `{}`)."""
    schema = _resolve(schema)
    if "allOf" not in schema:
        return schema
    out: dict[str, Any] = {}
    for layer in [*schema["allOf"], {k: v for k, v in schema.items() if k != "allOf"}]:
        layer = folded(layer)
        for key, value in layer.items():
            if key == "properties":
                merged = out.setdefault("properties", {})
                for name, sub in value.items():
                    merged[name] = {**folded(merged.get(name, {})), **folded(sub)}
            elif key == "required":
                out["required"] = [*out.get("required", []), *value]
            elif key == "description":
                out["description"] = f"{out.get('description', '')}\n{value}"
            else:
                out[key] = value
    return out


def register_response_schema() -> dict[str, Any]:
    return response_schema("/register", "post")


def response_schema(path: str, method: str) -> dict[str, Any]:
    """An endpoint's success response (the first example's schema where it has several)."""
    content = _document()["paths"][path][method]["responses"]["200"]
    content = _resolve(content)["content"]["application/json"]
    return folded(content["schema"])


def event_schemas(event_type: str) -> list[dict[str, Any]]:
    """The GET /events alternatives of one event type (one per op)."""
    events = response_schema("/events", "get")["properties"]["events"]["items"]
    found = []
    for alternative in folded(events)["oneOf"]:
        alternative = folded(alternative)
        kind = folded(alternative["properties"]["type"])
        if event_type in kind.get("enum", ()):
            found.append(alternative)
    return found


def register_keys() -> dict[str, dict[str, Any]]:
    """The top-level keys of the registration response (renamed) and their schemas."""
    return {renamed(name): folded(sub)
            for name, sub in register_response_schema()["properties"].items()}


def fetch_types_of(schema: dict[str, Any]) -> frozenset[str] | None:
    """The fetch types a key needs, from its description; None if it names none."""
    found = _PRESENT_IF.search(schema.get("description", ""))
    if found is None:
        return None
    return frozenset(name for name in found.groups() if name)


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,), "number": (int, float), "string": (str,), "boolean": (bool,),
    "array": (list,), "object": (dict,),
}


def _has_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    return isinstance(value, _JSON_TYPES[name])


def problems(value: Any, schema: dict[str, Any], path: str,
             may_be_absent: frozenset[str] = frozenset()) -> list[str]:
    """What in `value` breaks the schema: a listed key missing, or a value of another JSON
    type. Where an object's schema lists its required keys only those must be there;
    where it lists none, every key must, except those whose path (`key[].sub` for list
    items, `key{}.sub` for map values) is in may_be_absent."""
    schema = folded(schema)
    if value is None:
        return [] if schema.get("nullable") else [f"{path}: null, not allowed"]
    alternatives = schema.get("oneOf") or schema.get("anyOf")
    if alternatives:
        found = [problems(value, alt, path, may_be_absent) for alt in alternatives]
        if any(not found_here for found_here in found):
            return []
        return [f"{path}: matches no alternative: " + " | ".join("; ".join(f) for f in found)]
    kind = schema.get("type")
    if kind is None and "properties" in schema:
        kind = "object"
    if kind is not None and not _has_type(value, kind):
        return [f"{path}: {type(value).__name__} {value!r:.60}, expected {kind}"]
    found_problems: list[str] = []
    if isinstance(value, list) and "items" in schema:
        for item in value:
            found_problems += problems(item, schema["items"], f"{path}[]", may_be_absent)
            if found_problems:
                break   # one bad item tells enough
    if isinstance(value, dict):
        required = schema.get("required")
        for name, sub in (schema.get("properties") or {}).items():
            key = renamed(name)
            sub_path = f"{path}.{key}"
            if key in value:
                found_problems += problems(value[key], sub, sub_path, may_be_absent)
            elif sub_path not in may_be_absent and (required is None or name in required):
                found_problems.append(f"{sub_path}: missing")
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not schema.get("properties"):
            for item in value.values():
                found_problems += problems(item, extra, f"{path}{{}}", may_be_absent)
    return found_problems
