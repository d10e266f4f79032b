"""Typed request parameters declared in a view's signature.

A view's keyword-only parameters name what it accepts; their annotations say how the
form value is read: `int`, `str`, `bool` (JSON `true`/`false`), `Literal[...]`,
`Json[T]` for JSON-encoded lists and objects, `X | None` for values that may be null.
`Annotated[T, ApiParam(alias="type")]` maps a wire name that is not a Python name.

Every value is bounded before a view runs: strings and lists by a maximum length
(`ApiParam(max_length=...)`, else `MAX_STRING_LENGTH` / `MAX_LIST_LENGTH`), JSON by its
size and depth, and no string may hold what DynamoDB cannot store (lone surrogates).
"""
from __future__ import annotations

import inspect
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from chalicelib.core.errors import (
    ApiError,
    ResourceNotFoundError,
    missing_argument,
)
from chalicelib.rules.json_values import (
    check_json,
    check_storable,
    check_text,
    decode_json,
    integer_text,
    is_optional,
    is_union,
    non_none,
)

T = TypeVar("T")


# Defaults for parameters that declare no limit of their own. A view's own limits (a
# topic's 60 characters) are checked by its action; these keep every input bounded.
MAX_STRING_LENGTH = 100_000     # characters of a string parameter
MAX_LIST_LENGTH = 1_000         # items of a list parameter (before any of them is read)


@dataclass(frozen=True)
class ApiParam:
    """Extra facts about one parameter: its wire name, whether it is JSON-encoded, and
    the most characters (strings) or items (lists) it may have."""

    alias: str | None = None
    json: bool = False
    max_length: int | None = None
    # A TypedDict whose every key is an optional parameter of its own: the view gets a
    # dict of the keys the client sent (a PATCH of a settings family).
    fields_of: type | None = None


JSON_ENCODED = ApiParam(json=True)
Json = Annotated[T, JSON_ENCODED]
# A group-setting value (§2.7) or its `{new, old}` change: a group id or an object.
GroupSettingParam = Json[dict[str, Any] | int]


def changes_of(family: type) -> ApiParam:
    """Marks a view parameter `Annotated[dict[str, Any], changes_of(Family)]`: each key of
    the TypedDict `Family` is an optional parameter, and the view receives those sent
    (not null), so a settings family is declared once, as a type."""
    return ApiParam(fields_of=family)


@dataclass(frozen=True)
class ParamSpec:
    name: str          # Python name
    wire_name: str     # name on the wire
    annotation: Any    # the value's type, Annotated stripped
    json: bool
    required: bool
    default: Any
    in_path: bool
    max_length: int | None = None   # declared limit (characters or items), if any
    group: str | None = None        # the view parameter that collects it (changes_of)

    @property
    def length_limit(self) -> int:
        """The limit in force: the declared one, else the default for its type (a list
        type, or a union of list types, has the list default)."""
        return self.limit_for(_is_list_type(non_none(self.annotation)))

    def limit_for(self, is_list: bool) -> int:
        """The declared limit, else the default for a list or a string value."""
        if self.max_length is not None:
            return self.max_length
        return MAX_LIST_LENGTH if is_list else MAX_STRING_LENGTH


def _unwrap(annotation: Any) -> tuple[Any, ApiParam]:
    if get_origin(annotation) is Annotated:
        base, *extras = get_args(annotation)
        meta = ApiParam()
        for extra in extras:
            if isinstance(extra, ApiParam):
                meta = _merge(meta, extra)
        inner, inner_meta = _unwrap(base)
        return inner, _merge(inner_meta, meta)
    if get_origin(annotation) in (Union, types.UnionType):
        # `Json[T] | None`: the marker sits inside the union.
        parts = [_unwrap(arg) for arg in get_args(annotation)]
        if any(meta != ApiParam() for _, meta in parts):
            merged = ApiParam()
            for _, meta in parts:
                merged = _merge(merged, meta)
            # Built at run time from a tuple, which `X | Y` cannot spell.
            return Union[tuple(inner for inner, _ in parts)], merged  # noqa: UP007
    return annotation, ApiParam()


def _merge(first: ApiParam, second: ApiParam) -> ApiParam:
    """Both markers' facts; the second's win where both say something."""
    return ApiParam(alias=second.alias or first.alias, json=first.json or second.json,
                    max_length=second.max_length if second.max_length is not None
                    else first.max_length, fields_of=second.fields_of or first.fields_of)


def _is_list_type(tp: Any) -> bool:
    if is_union(tp):
        return all(_is_list_type(member) for member in get_args(tp))
    return tp is list or get_origin(tp) is list


def param_specs(func: Any, path_names: set[str]) -> list[ParamSpec]:
    hints = typing.get_type_hints(func, include_extras=True)
    specs = []
    for name, param in inspect.signature(func).parameters.items():
        if param.kind not in (param.KEYWORD_ONLY,):
            continue
        base, meta = _unwrap(hints[name])
        if meta.fields_of is not None:
            specs.extend(_field_specs(name, meta.fields_of))
            continue
        json_encoded = meta.json or _needs_json(non_none(base))
        specs.append(ParamSpec(
            name=name,
            wire_name=meta.alias or name,
            annotation=base,
            json=json_encoded,
            required=param.default is inspect.Parameter.empty,
            default=None if param.default is inspect.Parameter.empty else param.default,
            in_path=name in path_names,
            max_length=meta.max_length,
        ))
    return specs


def _field_specs(group: str, family: type) -> list[ParamSpec]:
    """One optional parameter per key of a TypedDict; null or absent means unchanged."""
    specs = []
    for key, annotation in typing.get_type_hints(family, include_extras=True).items():
        if get_origin(annotation) in (typing.NotRequired, typing.Required):
            annotation = typing.get_args(annotation)[0]   # optional in answers only
        base, meta = _unwrap(annotation)
        specs.append(ParamSpec(
            name=key, wire_name=meta.alias or key, annotation=base | None,
            json=meta.json or _needs_json(non_none(base)), required=False, default=None,
            in_path=False, max_length=meta.max_length, group=group))
    return specs


def _needs_json(tp: Any) -> bool:
    """Booleans, lists and objects travel JSON-encoded inside form values."""
    return tp is bool or get_origin(tp) in (list, dict) or tp in (list, dict)


def _check_length(spec: ParamSpec, value: Any) -> None:
    # By the value's kind: a parameter that takes a list or a string has both limits.
    limit = spec.limit_for(isinstance(value, list))
    if isinstance(value, str) and len(value) > limit:
        raise ApiError(f"{spec.wire_name} is over the limit of {limit} characters.")
    if isinstance(value, list) and len(value) > limit:
        raise ApiError(f"{spec.wire_name} has too many items "
                       f"(limit: {limit}).")


def parse_value(spec: ParamSpec, raw: Any) -> Any:
    """Turn one wire value into the declared type, or raise a message naming the parameter."""
    name = spec.wire_name
    if isinstance(raw, str) and spec.json:
        raw = decode_json(name, raw)
    elif isinstance(raw, str):
        _check_length(spec, raw)
        check_text(name, raw)
        return _parse_text(name, raw, spec.annotation)
    else:
        # A JSON request body already carries typed values (checked as the body).
        check_storable(name, raw)
    # Lengths before types: a list of a million ids is refused before any is read.
    _check_length(spec, raw)
    return check_json(name, raw, spec.annotation)


def parse_integer(name: str, raw: Any) -> int:
    """An integer given as wire text or as a JSON value, under the API's rules."""
    number: int = (_parse_text(name, raw, int) if isinstance(raw, str)
                   else check_json(name, raw, int))
    return number


def _parse_text(name: str, raw: str, tp: Any) -> Any:
    if is_optional(tp):
        if raw == "null":
            return None
        tp = non_none(tp)
    if tp is str or tp is Any:
        return raw
    if tp is int:
        return integer_text(name, raw)
    if tp is bool:   # inside a union with a text choice, e.g. bool | Literal["partial"]
        if raw not in ("true", "false"):
            raise ApiError(f"{name} must be true or false")
        return raw == "true"
    if get_origin(tp) is Literal:
        if raw not in get_args(tp):
            raise ApiError(f"{name} has an unacceptable value")
        return raw
    if get_origin(tp) in (Union, types.UnionType):
        for option in get_args(tp):
            try:
                return _parse_text(name, raw, option)
            except ApiError:
                continue
        raise ApiError(f"{name} has an unacceptable value")
    raise TypeError(f"unsupported parameter type {tp!r} for {name}")


def parse_params(specs: list[ParamSpec], supplied: dict[str, Any],
                 path_values: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """Parse every declared parameter; return the values and the unsupported names sent."""
    values: dict[str, Any] = {spec.group: {} for spec in specs if spec.group is not None}
    for spec in specs:
        if spec.in_path:
            try:
                values[spec.name] = parse_value(spec, path_values[spec.name])
            except ApiError:
                # "/messages/render" is no message id: no route serves that path.
                raise ResourceNotFoundError() from None
            continue
        if spec.wire_name not in supplied:
            if spec.group is not None:
                continue
            if spec.required:
                raise missing_argument(spec.wire_name)
            values[spec.name] = spec.default
            continue
        value = parse_value(spec, supplied[spec.wire_name])
        if spec.group is None:
            values[spec.name] = value
        elif value is not None:
            values[spec.group][spec.name] = value
    known = {spec.wire_name for spec in specs}
    ignored = sorted(name for name in supplied if name not in known)
    return values, ignored
