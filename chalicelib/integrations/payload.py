"""A tool's request body, bounded before it is parsed, and typed reads of its fields.

The body is refused above MAX_PAYLOAD_BYTES; its skeleton (the brackets and commas left
when strings are blanked, found by C-speed regular expressions and translations) is
measured before `json.loads` runs: at most MAX_VALUES values and MAX_DEPTH levels. A
translator then reads fields through `Field`, whose typed reads refuse what the tool
would not send (AnomalousPayloadError) instead of failing later.
"""
from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any
from urllib.parse import parse_qs

from chalicelib.core.errors import ApiError, ErrorCode
from chalicelib.integrations.base import AnomalousPayloadError

MAX_PAYLOAD_BYTES = 1_048_576
MAX_DEPTH = 32
MAX_VALUES = 50_000

# A JSON string from its opening quote to its closing one, or to the end of the body: it
# matches at every quote and never backtracks, so blanking strings stays linear however
# the body is made.
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b"[]{},")
# Opening brackets count +1, closing ones -1 (as signed bytes), commas are gone.
_DEPTH_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def invalid_json(detail: str = "the body cannot be parsed as JSON") -> ApiError:
    return ApiError(f"Malformed JSON: {detail}.", code=ErrorCode.INVALID_JSON)


def too_large() -> ApiError:
    return ApiError(f"The payload is too large (limit: {MAX_PAYLOAD_BYTES} bytes).",
                    http_status=413)


def check_shape(body: bytes) -> None:
    """Refuses a body too large, too deep or with too many values, without parsing it."""
    if len(body) > MAX_PAYLOAD_BYTES:
        raise too_large()
    skeleton = _STRING.sub(b"0", body).translate(None, _NOT_STRUCTURE)
    if skeleton.count(b",") + skeleton.count(b"[") + skeleton.count(b"{") > MAX_VALUES:
        raise ApiError(f"The payload has too many values (limit: {MAX_VALUES}).")
    steps = array("b", skeleton.replace(b",", b"").translate(_DEPTH_STEPS))
    if steps and max(accumulate(steps)) > MAX_DEPTH:
        raise ApiError(f"The payload is nested too deeply (limit: {MAX_DEPTH} levels).")


def decode_payload(body: bytes, content_type: str, form_field: str | None) -> Any:
    """The JSON value a tool sent: the body itself, or, for an integration that accepts
    forms, the JSON in the form field `form_field` of a form-encoded body."""
    if len(body) > MAX_PAYLOAD_BYTES:
        raise too_large()
    kind = content_type.split(";", 1)[0].strip().lower()
    if form_field is not None and kind == "application/x-www-form-urlencoded":
        body = _form_value(body, form_field)
    check_shape(body)
    if not body.strip():
        raise invalid_json("the body is empty")
    try:
        return json.loads(body)
    except RecursionError:   # unreachable after check_shape; kept as a guard
        raise invalid_json("nested too deeply") from None
    except ValueError:
        raise invalid_json() from None


def _form_value(body: bytes, field: str) -> bytes:
    try:
        fields = parse_qs(body.decode("utf-8"), max_num_fields=100)
    except (UnicodeDecodeError, ValueError):
        raise invalid_json("the form body cannot be read") from None
    values = fields.get(field)
    if not values:
        raise ApiError(f"The '{field}' parameter is required", code=ErrorCode.REQUEST_VARIABLE_MISSING,
                       var_name=field)
    return values[0].encode("utf-8", "surrogatepass")


_TYPE_NAMES = {str: "a string", int: "a number", bool: "true or false", dict: "an object",
               list: "a list"}


class Field:
    """A value of the payload and where it is, read by type: `field["a"]["b"].text()`.
    A missing key or a value of another type raises AnomalousPayloadError naming the
    path; `get` reads an optional key (a Field of None when absent)."""

    __slots__ = ("path", "value")

    def __init__(self, value: Any, path: str = "payload") -> None:
        self.value = value
        self.path = path

    def __getitem__(self, key: str) -> Field:
        mapping = self._typed(dict)
        if key not in mapping:
            raise AnomalousPayloadError(f"{self.path}.{key} is missing")
        return Field(mapping[key], f"{self.path}.{key}")

    def get(self, key: str) -> Field:
        """An optional key: a Field of None when absent, or when this value is null
        (so optional reads chain); any other value than an object is refused."""
        if self.value is None:
            return Field(None, f"{self.path}.{key}")
        return Field(self._typed(dict).get(key), f"{self.path}.{key}")

    def __contains__(self, key: str) -> bool:
        return isinstance(self.value, dict) and key in self.value

    @property
    def present(self) -> bool:
        """Sent, and neither null nor empty."""
        return self.value not in (None, "", [], {})

    def text(self) -> str:
        return str(self._typed(str))

    def opt_text(self) -> str | None:
        """A string, or None for null or absent."""
        return None if self.value is None else self.text()

    def number(self) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise AnomalousPayloadError(f"{self.path} is not a whole number")
        return self.value

    def flag(self) -> bool:
        return bool(self._typed(bool))

    def scalar(self) -> str:
        """A string, number or boolean, as text (values some tools send either way)."""
        if isinstance(self.value, (str, int, float)) and not isinstance(self.value, bool):
            return str(self.value)
        if isinstance(self.value, bool):
            return "true" if self.value else "false"
        raise AnomalousPayloadError(f"{self.path} is not a string or a number")

    def items(self, limit: int) -> list[Field]:
        """The first `limit` elements of a list (null reads as an empty list)."""
        if self.value is None:
            return []
        values = self._typed(list)
        return [Field(v, f"{self.path}[{i}]") for i, v in enumerate(values[:limit])]

    def count(self) -> int:
        return len(self.value) if isinstance(self.value, (list, dict)) else 0

    def pairs(self, limit: int) -> list[tuple[str, Field]]:
        """The first `limit` entries of an object (null reads as an empty object)."""
        if self.value is None:
            return []
        mapping = self._typed(dict)
        return [(k, Field(v, f"{self.path}.{k}")) for k, v in list(mapping.items())[:limit]]

    def _typed(self, kind: type) -> Any:
        if not isinstance(self.value, kind) or (kind is int and isinstance(self.value, bool)):
            raise AnomalousPayloadError(f"{self.path} is not {_TYPE_NAMES[kind]}")
        return self.value
