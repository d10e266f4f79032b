"""JSON values from clients, checked before they cost anything: size, depth, storability
(strings DynamoDB can store) and shape against a Python type."""
from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin

from chalicelib.core.errors import ApiError

MAX_JSON_LENGTH = 1_000_000     # characters of a JSON-encoded parameter


MAX_JSON_DEPTH = 16             # nesting of lists and objects in any JSON value


MAX_JSON_NODES = 100_000        # values in one JSON parameter or body


def is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def is_optional(tp: Any) -> bool:
    return is_union(tp) and type(None) in get_args(tp)


def non_none(tp: Any) -> Any:
    """`X | None` -> X (the union of the rest); any other type as it is."""
    if not is_optional(tp):
        return tp
    rest = [a for a in get_args(tp) if a is not type(None)]
    return rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007


# ASCII digits only: int() would also take "1_000", " 7" and other scripts' digits.
INTEGER_TEXT = re.compile(r"-?[0-9]+")


# Every integer the API takes (ids, counts, seconds, milliseconds) fits well below 2**53;
# larger ones would only reach DynamoDB, which refuses numbers of over 38 digits.
MAX_INTEGER = 2**53


_MAX_INTEGER_DIGITS = len(str(MAX_INTEGER))


def integer_text(name: str, raw: str) -> int:
    if not INTEGER_TEXT.fullmatch(raw):
        raise ApiError(f"{name} must be an integer")
    if len(raw) > _MAX_INTEGER_DIGITS + 1:   # int() refuses over 4,300 digits anyway
        raise ApiError(f"{name} is out of range")
    return _bounded(name, int(raw))


def _bounded(name: str, value: int) -> int:
    if not -MAX_INTEGER < value < MAX_INTEGER:
        raise ApiError(f"{name} is out of range")
    return value


def decode_json(name: str, text: str) -> Any:
    """JSON text within the size and depth limits, its strings storable."""
    if len(text) > MAX_JSON_LENGTH:
        raise ApiError(f"Argument '{name}' is over the limit of {MAX_JSON_LENGTH} characters.")
    try:
        value = json.loads(text)
    except RecursionError:
        raise too_deep(name) from None
    except ValueError:
        raise ApiError(f"Argument '{name}' cannot be parsed as JSON.") from None
    check_storable(name, value)
    return value


def too_deep(name: str) -> ApiError:
    return ApiError(f"Argument '{name}' is nested too deeply (limit: "
                    f"{MAX_JSON_DEPTH} levels).")


def check_storable(name: str, value: Any) -> None:
    """Walks a decoded JSON value (iteratively: no recursion on hostile input): at most
    MAX_JSON_DEPTH levels and MAX_JSON_NODES values, every string and key storable."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    nodes = 0
    while pending:
        item, depth = pending.pop()
        nodes += 1
        if nodes > MAX_JSON_NODES:
            raise ApiError(f"Argument '{name}' has too many values (limit: "
                           f"{MAX_JSON_NODES}).")
        if isinstance(item, str):
            check_text(name, item)
        elif isinstance(item, (list, dict)):
            if depth >= MAX_JSON_DEPTH:
                raise too_deep(name)
            if isinstance(item, dict):
                for key in item:
                    check_text(name, key)
                pending.extend((v, depth + 1) for v in item.values())
            else:
                pending.extend((v, depth + 1) for v in item)


def check_text(name: str, text: str) -> str:
    """Refuses strings that DynamoDB cannot store: UTF-16 halves (lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(f"{name} contains characters that cannot be stored "
                       "(unpaired surrogates).") from None
    return text


def check_json(name: str, value: Any, tp: Any) -> Any:
    """Check a decoded JSON value against a type; the message names the bad element."""
    if tp is Any:
        return value
    if is_optional(tp):
        return None if value is None else check_json(name, value, non_none(tp))
    if tp in _SCALAR_CHECKS:
        return _SCALAR_CHECKS[tp](name, value)
    origin = get_origin(tp)
    if origin is Literal:
        if value not in get_args(tp):
            raise ApiError(f"{name} has an unacceptable value")
        return value
    if origin is list or tp is list:
        return _check_list(name, value, tp)
    if origin is dict or tp is dict:
        return _check_dict(name, value, tp)
    if origin in (Union, types.UnionType):
        for option in get_args(tp):
            try:
                return check_json(name, value, option)
            except ApiError:
                continue
        raise ApiError(f"{name} is not an allowed value")
    if typing.is_typeddict(tp):
        return _check_typeddict(name, value, tp)
    raise TypeError(f"unsupported JSON type {tp!r} for {name}")


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ApiError(f"{name} must be true or false")
    return value


def _check_int(name: str, value: Any) -> int:
    if isinstance(value, str) and INTEGER_TEXT.fullmatch(value):
        return integer_text(name, value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(f"{name} must be an integer")
    return _bounded(name, value)


def _check_str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ApiError(f"{name} must be a string")
    return value


_SCALAR_CHECKS: dict[Any, Callable[[str, Any], Any]] = {
    bool: _check_bool, int: _check_int, str: _check_str}


def _check_list(name: str, value: Any, tp: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ApiError(f"{name} must be a list")
    (item_tp,) = get_args(tp) or (Any,)
    return [check_json(f"{name}[{i}]", item, item_tp) for i, item in enumerate(value)]


def _check_dict(name: str, value: Any, tp: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ApiError(f"{name} must be a JSON object")
    _, value_tp = get_args(tp) or (str, Any)
    return {k: check_json(f"{name}[\"{k}\"]", v, value_tp) for k, v in value.items()}


def _check_typeddict(name: str, value: Any, tp: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ApiError(f"{name} must be a JSON object")
    hints = typing.get_type_hints(tp)
    for key in tp.__required_keys__:
        if key not in value:
            raise ApiError(f"{name} is missing key '{key}'")
    return {key: check_json(f"{name}[\"{key}\"]", v, hints[key])
            for key, v in value.items() if key in hints}
