"""Integer-typed DynamoDB numbers.

PynamoDB's NumberAttribute is typed as float, yet every number this service stores is an
integer (ids, seconds, counts, bit sets); these say so, so the type checker holds the
callers to it. Stored as NumberAttribute stores them (the JSON text of the number).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TypeVar, cast

from pynamodb.attributes import Attribute, ListAttribute
from pynamodb.constants import NUMBER, NUMBER_SET

T = TypeVar("T")


def integer_of(text: str) -> int:
    """A stored number's text as the integer it holds."""
    if text.isascii() and text.removeprefix("-").isdigit():
        return int(text)   # nearly always, and a tenth of json.loads's cost
    number = json.loads(text)
    # An item written by hand may hold 3.0; it is still the integer 3.
    return number if isinstance(number, int) else int(number)


class IntegerAttribute(Attribute[int]):
    """A DynamoDB number holding an integer."""

    attr_type = NUMBER

    def serialize(self, value: int) -> str:
        # str() is json.dumps's text for an int (not for a bool), at a fraction of its cost.
        return str(value) if type(value) is int else json.dumps(value)

    def deserialize(self, value: str) -> int:
        return integer_of(value)


class IntegerSetAttribute(Attribute[set[int]]):
    """A DynamoDB number set holding integers; an empty set is not stored."""

    attr_type = NUMBER_SET
    null = True

    def serialize(self, value: Iterable[int]) -> list[str] | None:
        return [str(number) if type(number) is int else json.dumps(number)
                for number in value] or None

    def deserialize(self, value: Iterable[str]) -> set[int]:
        return {integer_of(text) for text in value}


def list_of(element: type[Attribute[T]], **options: Any) -> ListAttribute[T]:
    """A ListAttribute typed by its elements' values (ListAttribute(of=X) types its
    elements as the attribute class X itself)."""
    return cast("ListAttribute[T]", ListAttribute(of=element, **options))
