"""Typed request parameters declared in a view's signature.

A view's keyword-only parameters name what it accepts; their annotations say how the
form value is read: `int`, `str`, `bool` (JSON `true`/`false`), `Literal[...]`,
`Json[T]` for JSON-encoded lists and objects, `X | None` for values that may be null.
`Annotated[T, ApiParam(alias="type")]` maps a wire name that is not a Python name.
"""
from __future__ import annotations

import inspect
import json
import re
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from chalicelib.http.errors import (
    ApiError,
    ResourceNotFoundError,
    invalid_argument,
    missing_argument,
)

T = TypeVar("T")


@dataclass(frozen=True)
class ApiParam:
    """Extra facts about one parameter: its wire name and whether it is JSON-encoded."""

    alias: str | None = None
    json: bool = False


JSON_ENCODED = ApiParam(json=True)
Json = Annotated[T, JSON_ENCODED]
# A group-setting value (§2.7) or its `{new, old}` change: a group id or an object.
GroupSettingParam = Json[dict[str, Any] | int]


@dataclass(frozen=True)
class ParamSpec:
    name: str          # Python name
    wire_name: str     # name on the wire
    annotation: Any    # the value's type, Annotated stripped
    json: bool
    required: bool
    default: Any
    in_path: bool


def _unwrap(annotation: Any) -> tuple[Any, ApiParam]:
    if get_origin(annotation) is Annotated:
        base, *extras = get_args(annotation)
        meta = ApiParam()
        for extra in extras:
            if isinstance(extra, ApiParam):
                meta = ApiParam(alias=extra.alias or meta.alias, json=extra.json or meta.json)
        inner, inner_meta = _unwrap(base)
        return inner, ApiParam(alias=meta.alias or inner_meta.alias,
                               json=meta.json or inner_meta.json)
    if get_origin(annotation) in (Union, types.UnionType):
        # `Json[T] | None`: the marker sits inside the union.
        parts = [_unwrap(arg) for arg in get_args(annotation)]
        if any(meta.json or meta.alias for _, meta in parts):
            alias = next((meta.alias for _, meta in parts if meta.alias), None)
            # Built at run time from a tuple, which `X | Y` cannot spell.
            return (Union[tuple(inner for inner, _ in parts)],  # noqa: UP007
                    ApiParam(alias=alias, json=any(meta.json for _, meta in parts)))
    return annotation, ApiParam()


def _is_optional(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType) and type(None) in get_args(tp)


def _non_none(tp: Any) -> Any:
    if not _is_optional(tp):
        return tp
    rest = [a for a in get_args(tp) if a is not type(None)]
    return rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007


def param_specs(func: Any, path_names: set[str]) -> list[ParamSpec]:
    hints = typing.get_type_hints(func, include_extras=True)
    specs = []
    for name, param in inspect.signature(func).parameters.items():
        if param.kind not in (param.KEYWORD_ONLY,):
            continue
        base, meta = _unwrap(hints[name])
        json_encoded = meta.json or _needs_json(_non_none(base))
        specs.append(ParamSpec(
            name=name,
            wire_name=meta.alias or name,
            annotation=base,
            json=json_encoded,
            required=param.default is inspect.Parameter.empty,
            default=None if param.default is inspect.Parameter.empty else param.default,
            in_path=name in path_names,
        ))
    return specs


def _needs_json(tp: Any) -> bool:
    """Booleans, lists and objects travel JSON-encoded inside form values."""
    return tp is bool or get_origin(tp) in (list, dict) or tp in (list, dict)


# ASCII digits only: int() would also take "1_000", " 7" and other scripts' digits.
_INTEGER_TEXT = re.compile(r"-?[0-9]+")
# Every integer the API takes (ids, counts, seconds, milliseconds) fits well below 2**53;
# larger ones would only reach DynamoDB, which refuses numbers of over 38 digits.
MAX_INTEGER = 2**53


def _bounded(name: str, value: int) -> int:
    if not -MAX_INTEGER < value < MAX_INTEGER:
        raise invalid_argument(name, f"{name} is out of range")
    return value


def parse_value(spec: ParamSpec, raw: Any) -> Any:
    """Turn one wire value into the declared type, or raise a message naming the parameter."""
    name = spec.wire_name
    if isinstance(raw, str) and spec.json:
        try:
            raw = json.loads(raw)
        except ValueError:
            raise invalid_argument(name, f"Argument '{name}' is not valid JSON.") from None
        return check_json(name, raw, spec.annotation)
    if isinstance(raw, str):
        return _parse_text(name, raw, spec.annotation)
    # A JSON request body already carries typed values.
    return check_json(name, raw, spec.annotation)


def _parse_text(name: str, raw: str, tp: Any) -> Any:
    if _is_optional(tp):
        if raw == "null":
            return None
        tp = _non_none(tp)
    if tp is str or tp is Any:
        return raw
    if tp is int:
        if not _INTEGER_TEXT.fullmatch(raw):
            raise invalid_argument(name, f"{name} is not an integer")
        return _bounded(name, int(raw))
    if get_origin(tp) is Literal:
        if raw not in get_args(tp):
            raise invalid_argument(name, f"Invalid {name}")
        return raw
    if get_origin(tp) in (Union, types.UnionType):
        for option in get_args(tp):
            try:
                return _parse_text(name, raw, option)
            except ApiError:
                continue
        raise invalid_argument(name, f"Invalid {name}")
    raise TypeError(f"unsupported parameter type {tp!r} for {name}")


def check_json(name: str, value: Any, tp: Any) -> Any:
    """Check a decoded JSON value against a type; the message names the bad element."""
    if tp is Any:
        return value
    if _is_optional(tp):
        return None if value is None else check_json(name, value, _non_none(tp))
    origin = get_origin(tp)
    if tp is bool:
        if not isinstance(value, bool):
            raise invalid_argument(name, f"{name} is not a boolean")
        return value
    if tp is int:
        if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value):
            return _bounded(name, int(value))
        if isinstance(value, bool) or not isinstance(value, int):
            raise invalid_argument(name, f"{name} is not an integer")
        return _bounded(name, value)
    if tp is str:
        if not isinstance(value, str):
            raise invalid_argument(name, f"{name} is not a string")
        return value
    if origin is Literal:
        if value not in get_args(tp):
            raise invalid_argument(name, f"Invalid {name}")
        return value
    if origin is list or tp is list:
        if not isinstance(value, list):
            raise invalid_argument(name, f"{name} is not a list")
        (item_tp,) = get_args(tp) or (Any,)
        return [check_json(f"{name}[{i}]", item, item_tp) for i, item in enumerate(value)]
    if origin is dict or tp is dict:
        if not isinstance(value, dict):
            raise invalid_argument(name, f"{name} is not a dict")
        _, value_tp = get_args(tp) or (str, Any)
        return {k: check_json(f"{name}[\"{k}\"]", v, value_tp) for k, v in value.items()}
    if origin in (Union, types.UnionType):
        for option in get_args(tp):
            try:
                return check_json(name, value, option)
            except ApiError:
                continue
        raise invalid_argument(name, f"{name} is not an allowed value")
    if typing.is_typeddict(tp):
        return _check_typeddict(name, value, tp)
    raise TypeError(f"unsupported JSON type {tp!r} for {name}")


def _check_typeddict(name: str, value: Any, tp: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise invalid_argument(name, f"{name} is not a dict")
    hints = typing.get_type_hints(tp)
    for key in tp.__required_keys__:
        if key not in value:
            raise invalid_argument(name, f"{name} is missing key '{key}'")
    return {key: check_json(f"{name}[\"{key}\"]", v, hints[key])
            for key, v in value.items() if key in hints}


def parse_params(specs: list[ParamSpec], supplied: dict[str, Any],
                 path_values: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """Parse every declared parameter; return the values and the unsupported names sent."""
    values: dict[str, Any] = {}
    for spec in specs:
        if spec.in_path:
            try:
                values[spec.name] = parse_value(spec, path_values[spec.name])
            except ApiError:
                # "/messages/render" is no message id: no route serves that path.
                raise ResourceNotFoundError() from None
            continue
        if spec.wire_name not in supplied:
            if spec.required:
                raise missing_argument(spec.wire_name)
            values[spec.name] = spec.default
            continue
        values[spec.name] = parse_value(spec, supplied[spec.wire_name])
    known = {spec.wire_name for spec in specs}
    ignored = sorted(name for name in supplied if name not in known)
    return values, ignored


def sent_values(values: dict[str, Any], *, exclude: tuple[str, ...] = ("caller",)
                ) -> dict[str, Any]:
    """The parameters a client sent, for views whose optional ones default to None:
    called on the view's `locals()` before it binds anything else."""
    return {name: value for name, value in values.items()
            if name not in exclude and value is not None}
