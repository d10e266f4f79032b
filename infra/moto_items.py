"""Local-only: moto's item construction and item sizes, computed once instead of again
and again (applied by infra/moto_patches.py).

moto checks an item's 400 KB limit on every attribute it sets, summing the sizes of all
the attributes set before: an item of n attributes costs n² size computations. And a
map's size builds a copy of every nested value first. A profile of warm fan-outs to
1,000 queues had a third of the local database's time in sizes and item construction
(a Query of 1,000 subscriptions sizes each twice). Here an item's attributes are
converted and its size summed once, with the same limit and error; a value's size
walks the value without copying it. The sizes are moto's to the byte
(tests/unit/test_moto_items.py compares them).

Unpickling has the same n² cost: pickle fills a dict subclass key by key through its
`__setitem__`, so restoring a saved state of 100,000 items took 40 s of size sums.
Items' attributes pickle here as a plain dict given back whole (`limited_size_dict`):
they were checked when written.
"""
from __future__ import annotations

import contextlib
import copyreg
import threading
from collections.abc import Iterator
from typing import Any

# moto's own limit (between DynamoDB's documented 400 KB and its measured ~409 KB).
MOTO_ITEM_SIZE_LIMIT = 405_000
_SETS = {"SS", "BS"}
_remembered = threading.local()   # id(item) -> (item, size), while a locked read runs


@contextlib.contextmanager
def sizes_remembered() -> Iterator[None]:
    """Within it (a read holding the backend lock: no item changes), an item's size is
    computed once however often it is asked for."""
    outer = getattr(_remembered, "sizes", None)
    if outer is None:
        _remembered.sizes = {}
    try:
        yield
    finally:
        if outer is None:
            _remembered.sizes = None


def _bytesize(value: str | bytes) -> int:
    return len(value if isinstance(value, bytes) else value.encode("utf-8"))


def value_size(value: Any) -> int:
    """moto's DynamoType.size, without building a DynamoType per nested value."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    if type(value) is not DynamoType:
        value = DynamoType(value)
    kind, data = value.type, value.value
    if kind == "N":
        return len(str(data))
    if kind in _SETS:
        return sum(_bytesize(v) for v in data)
    if kind == "NS":
        return sum(len(str(v)) for v in data)
    if kind == "L":
        return sum(value_size(v) for v in data)
    if kind == "M":
        return sum(_bytesize(k) + value_size(v) for k, v in data.items())
    if isinstance(data, bool):
        return 1
    return _bytesize(data)


def limited_size_dict(attributes: dict[str, Any]) -> Any:
    """moto's attribute dict holding `attributes` (already checked), without its
    per-key size sums: how a saved item's attributes are unpickled."""
    from moto.dynamodb.models.dynamo_type import LimitedSizeDict

    attrs = LimitedSizeDict()
    dict.update(attrs, attributes)   # dict's update: no per-key size sums
    return attrs


def register_pickle_reducer() -> None:
    """Items' attributes pickle as a plain dict restored by `limited_size_dict`."""
    from moto.dynamodb.models.dynamo_type import LimitedSizeDict

    copyreg.pickle(LimitedSizeDict, lambda attrs: (limited_size_dict, (dict(attrs),)))


def apply() -> None:
    from moto.dynamodb.exceptions import ItemSizeTooLarge
    from moto.dynamodb.models.dynamo_type import DynamoType, Item

    original_init = Item.__init__
    original_size = DynamoType.size
    original_item_size = Item.size

    def init(self: Any, hash_key: Any, range_key: Any, attrs: dict[str, Any]) -> None:
        self.hash_key = hash_key
        self.range_key = range_key
        converted = {key: DynamoType(value) for key, value in attrs.items()}
        # moto's check, made once: the whole item is the largest sum it ever tests.
        if sum(_bytesize(k) + value_size(v) for k, v in converted.items()) \
                > MOTO_ITEM_SIZE_LIMIT:
            raise ItemSizeTooLarge
        self.attrs = limited_size_dict(converted)

    def size(self: Any) -> int:
        return value_size(self)

    def item_size(self: Any) -> int:
        sizes = getattr(_remembered, "sizes", None)
        if sizes is None:
            return _item_size(self)
        # The item is kept with its size: its id cannot pass to another while remembered.
        found = sizes.get(id(self))
        if found is None:
            found = sizes[id(self)] = (self, _item_size(self))
        return found[1]

    init.__wrapped__ = original_init  # type: ignore[attr-defined]
    size.__wrapped__ = original_size  # type: ignore[attr-defined]
    item_size.__wrapped__ = original_item_size  # type: ignore[attr-defined]
    Item.__init__ = init  # type: ignore[method-assign]
    DynamoType.size = size  # type: ignore[method-assign]
    Item.size = item_size  # type: ignore[method-assign]
    register_pickle_reducer()


def _item_size(item: Any) -> int:
    return sum(_bytesize(key) + value_size(value) for key, value in item.attrs.items())
