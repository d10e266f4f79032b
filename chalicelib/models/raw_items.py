"""Raw DynamoDB items, as a Query's pages hold them, read straight into plain values the
way the models' attributes read them, without building a model: for the reads of
thousands of items a registration makes (models/user_rows.py, models/presence.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from pynamodb.models import Model
from pynamodb.pagination import ResultIterator

from chalicelib.models.attributes import integer_of

RawItem = dict[str, dict[str, Any]]
T = TypeVar("T")


class RawValues:
    """One raw item's values by their names in the item: None where absent or null."""

    __slots__ = ("item",)

    def __init__(self, item: RawItem) -> None:
        self.item = item

    def _stored(self, name: str, kind: str) -> Any:
        value = self.item.get(name)
        return None if value is None or "NULL" in value else value[kind]

    def text(self, name: str) -> str | None:
        return cast("str | None", self._stored(name, "S"))

    def number(self, name: str) -> int | None:
        text = self._stored(name, "N")
        return None if text is None else integer_of(cast(str, text))

    def flag(self, name: str) -> bool | None:
        return cast("bool | None", self._stored(name, "BOOL"))


def query_rows(model: type[Model], hash_key: Any, make_row: Callable[[RawItem], T],
               attributes: list[str] | None = None) -> list[T]:
    """One partition of the model's table, each raw item made a row: one Query, paged by
    DynamoDB (of only `attributes` when given)."""
    options = {} if attributes is None else {"attributes_to_get": attributes}
    pages: ResultIterator[T] = ResultIterator(
        model._get_connection().query, (model._serialize_keys(hash_key)[0],), options,
        map_fn=make_row)
    return list(pages)
