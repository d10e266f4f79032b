"""JSON Schema (2020-12, as OpenAPI 3.1 uses) for Python annotations: TypedDicts become
named, closed components; `NotRequired` keys stay out of `required`.

Used by the OpenAPI generator (chalicelib/http/openapi.py) only.
"""
from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin

from chalicelib.delivery.types import QUEUE_EVENTS

JsonSchema = dict[str, Any]
SCHEMA_REF = "#/components/schemas/"
QUEUE_EVENT_COMPONENT = "Event"


@dataclass
class _Components:
    """Named schemas, each TypedDict once under its class name (names must be unique)."""

    schemas: dict[str, JsonSchema] = field(default_factory=dict)
    owners: dict[str, type] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def ref(self, name: str) -> JsonSchema:
        return {"$ref": SCHEMA_REF + name}

    def claim(self, name: str, owner: type) -> bool:
        """True if `name` is new; a second class of the same name is a problem."""
        known = self.owners.get(name)
        if known is None:
            self.owners[name] = owner
            return True
        if known is not owner:
            self.problems.append(f"two types named {name}: {where(known)} and {where(owner)}")
        return False


def where(owner: type) -> str:
    return f"{owner.__module__}.{owner.__qualname__}"


class SchemaBuilder:
    """Turns Python annotations into JSON Schema (2020-12, as OpenAPI 3.1 uses)."""

    def __init__(self) -> None:
        self.components = _Components()
        self.results: set[type] = set()   # view results: wrapped in the envelope

    def schema(self, tp: Any) -> JsonSchema:
        if tp is Any or tp is object:
            return {}
        if tp is type(None) or tp is None:
            return {"type": "null"}
        simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
        if tp in simple:
            return {"type": simple[tp]}
        origin = get_origin(tp)
        if origin is typing.Annotated:
            if QUEUE_EVENTS in get_args(tp)[1:]:
                return self.components.ref(QUEUE_EVENT_COMPONENT)
            return self.schema(get_args(tp)[0])
        if origin in (NotRequired, Required):
            return self.schema(get_args(tp)[0])
        if origin is Literal:
            return _literal_schema(get_args(tp))
        if origin in (Union, types.UnionType):
            return self._union(get_args(tp))
        if origin is list or tp is list:
            (item,) = get_args(tp) or (Any,)
            return {"type": "array", "items": self.schema(item)}
        if origin is tuple:
            items = get_args(tp)
            return {"type": "array", "prefixItems": [self.schema(i) for i in items],
                    "items": False, "minItems": len(items), "maxItems": len(items)}
        if origin is dict or tp is dict or origin is Mapping:
            key, value = get_args(tp) or (str, Any)
            schema: JsonSchema = {"type": "object", "additionalProperties": self.schema(value)}
            if key is int:   # JSON keys are text: integer ids written as digits
                schema["propertyNames"] = {"pattern": "^-?[0-9]+$"}
            return schema
        if typing.is_typeddict(tp):
            return self.typeddict_ref(tp)
        self.components.problems.append(f"no JSON Schema for the type {tp!r}")
        return {}

    def _union(self, options: tuple[Any, ...]) -> JsonSchema:
        schemas = [self.schema(option) for option in options]
        types_only = [s.get("type") for s in schemas if set(s) == {"type"}]
        if len(types_only) == len(schemas):   # int | None -> {"type": ["integer", "null"]}
            return {"type": types_only}
        return {"anyOf": schemas}

    def typeddict_ref(self, td: type) -> JsonSchema:
        name = td.__name__
        if td in self.results:
            self.components.problems.append(
                f"{where(td)} is a view's result and also part of another shape: give "
                "the view a result type of its own")
        if self.components.claim(name, td):
            self.components.schemas[name] = {}   # placeholder: recursive types terminate
            self.components.schemas[name] = self.object_schema(td)
        return self.components.ref(name)

    def object_schema(self, td: type, extra: Mapping[str, tuple[JsonSchema, bool]] = {},
                      ) -> JsonSchema:
        """A closed object with the TypedDict's keys (plus `extra` ones, first)."""
        properties: dict[str, JsonSchema] = {}
        required: list[str] = []
        for key, (schema, is_required) in extra.items():
            properties[key] = schema
            if is_required:
                required.append(key)
        for key, (tp, is_required) in typeddict_fields(td).items():
            properties[key] = self.schema(tp)
            if is_required:
                required.append(key)
        extra_items = _extra_items(td)
        schema = {"type": "object", "properties": properties, "required": required,
                  "additionalProperties": False if extra_items is None
                  else self.schema(extra_items)}
        # Only the class's own docstring: getdoc would inherit dict's for a bare TypedDict.
        own = td.__dict__.get("__doc__")
        doc = inspect.cleandoc(own) if isinstance(own, str) else None
        if doc and not doc.startswith(td.__name__ + "("):
            schema["description"] = doc
        return schema


def _literal_schema(values: tuple[Any, ...]) -> JsonSchema:
    kinds = {bool: "boolean", int: "integer", str: "string"}
    found = sorted({kinds[type(v)] for v in values if type(v) in kinds})
    schema: JsonSchema = {"enum": list(values)}
    if len(found) == 1:
        schema["type"] = found[0]
    return schema


def typeddict_fields(td: type) -> dict[str, tuple[Any, bool]]:
    """Each key's type and whether it is required.

    Computed here because Python 3.11 misses `NotRequired` in string annotations
    (`from __future__ import annotations`) when it fills `__required_keys__`.
    """
    hints = typing.get_type_hints(td, include_extras=True)
    fields: dict[str, tuple[Any, bool]] = {}
    for key, tp in hints.items():
        origin = get_origin(tp)
        if origin is NotRequired:
            fields[key] = (get_args(tp)[0], False)
        elif origin is Required:
            fields[key] = (get_args(tp)[0], True)
        else:   # the totality of the class that declared the key
            fields[key] = (tp, key in td.__required_keys__)  # type: ignore[attr-defined]
    return fields


def _extra_items(td: type) -> Any:
    """The type of the keys a TypedDict leaves open (PEP 728's `__extra_items__`, set by
    hand on Python 3.11, where subclasses cannot inherit it), or None for a closed one."""
    return td.__dict__.get("__extra_items__")
