"""Secondary-index Queries that read one index partition, as DynamoDB's do.

moto keeps no index: a Query on a GSI walks every item of the table and keeps those
whose index key matches. That made a Query cost as much as the table is large: at
10,000 people and a million messages (issue 41) one channel's subscribers were a walk
of 200,000 subscriptions, a registration with subscribers 2,000 such walks, and a page
of a channel's history a walk of a million messages.

Here each table's indexes are kept beside it, built on the first Query of an index
(one walk) and then kept in step with every write: a put or a delete moves the item in
or out of its index partitions; an update (moto changes the item in place) places the
item again by its key attributes now. Whatever changes a table's items by another way
(a transaction's rollback, the journal's replay) calls `forget`, and the next Query
walks the table once more. moto still filters, sorts and pages the partition it is
given, so answers are moto's own (tests/unit/test_moto_indexes.py compares them).

A key Query gets the same help (`key_window`): each partition kept sorted by its range
key until it is written, and moto handed only the run of it the page can reach.

Applied with the other patches (infra/moto_patches.py); every write and Query already
runs under moto_patches' lock, so no index changes during a Query.
"""
from __future__ import annotations

import bisect
import weakref
from typing import Any

# Table -> its indexes. Weak, so a table dropped with its backend takes them along; kept
# out of the table object, so snapshots do not pickle them.
_INDEXES: weakref.WeakKeyDictionary[Any, TableIndexes] = weakref.WeakKeyDictionary()


class TableIndexes:
    """One table's index partitions: index name -> hash value -> {item key: item}, and
    where each item is placed, to move it when its key attributes change."""

    def __init__(self, table: Any) -> None:
        self.hash_attrs: dict[str, str] = {}
        for index in table.all_indexes():
            hashes = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
            if len(hashes) == 1:
                self.hash_attrs[index.name] = hashes[0]
        self.partitions: dict[str, dict[Any, dict[Any, Any]]] = {}
        self.placed: dict[str, dict[Any, Any]] = {}

    def partition(self, table: Any, index_name: str, hash_value: Any) -> list[Any] | None:
        """The items of one index partition; None for an index this cannot serve."""
        attr = self.hash_attrs.get(index_name)
        if attr is None:
            return None
        if index_name not in self.partitions:
            self._build(table, index_name, attr)
        return list(self.partitions[index_name].get(hash_value, {}).values())

    def _build(self, table: Any, index_name: str, attr: str) -> None:
        partitions: dict[Any, dict[Any, Any]] = {}
        placed: dict[Any, Any] = {}
        for item in _every_item(table):
            value = item.attrs.get(attr)
            if value is not None:
                key = (item.hash_key, item.range_key)
                partitions.setdefault(value, {})[key] = item
                placed[key] = value
        self.partitions[index_name], self.placed[index_name] = partitions, placed

    def place(self, item: Any) -> None:
        """Puts the item (new, replaced or updated) where its key attributes say."""
        key = (item.hash_key, item.range_key)
        for index_name, partitions in self.partitions.items():
            self._remove(index_name, key)
            value = item.attrs.get(self.hash_attrs[index_name])
            if value is not None:
                partitions.setdefault(value, {})[key] = item
                self.placed[index_name][key] = value

    def remove(self, item: Any) -> None:
        key = (item.hash_key, item.range_key)
        for index_name in self.partitions:
            self._remove(index_name, key)

    def _remove(self, index_name: str, key: Any) -> None:
        value = self.placed[index_name].pop(key, None)
        if value is not None:
            partition = self.partitions[index_name][value]
            partition.pop(key, None)
            if not partition:
                del self.partitions[index_name][value]


# Key Queries: a partition kept sorted by its range key, and the window of it a page can
# reach. moto sorted the whole partition for every page, then walked it to the page's
# start: an export reads a realm's million messages in 500 pages, each of which sorted
# and walked the million. moto still checks, sorts and pages the window it is given.
_SIZE_LIMIT = 1024 * 1024    # moto's (and DynamoDB's) page size


class SortedPartitions:
    """One table's partitions, each sorted by range key once until written again."""

    def __init__(self) -> None:
        # hash -> items, keys, and the sizes of the items pages have counted (by position)
        self.sorted: dict[Any, tuple[list[Any], list[Any], dict[int, int]]] = {}

    def of(self, table: Any, hash_value: Any) -> tuple[list[Any], list[Any], dict[int, int]]:
        found = self.sorted.get(hash_value)
        if found is None:
            items = sorted((table.items.get(hash_value) or {}).values(),
                           key=lambda item: item.range_key)
            found = self.sorted[hash_value] = (items, [i.range_key for i in items], {})
        return found

    def changed(self, hash_value: Any) -> None:
        self.sorted.pop(hash_value, None)


_SORTED: weakref.WeakKeyDictionary[Any, SortedPartitions] = weakref.WeakKeyDictionary()
key_windows = 0   # how many key Queries were handed a window (the tests check it is used)
# Comparisons whose matches are one run of the sorted keys: (lower, upper) bisections.
_BOUNDS = {"EQ": ("left", "right"), "=": ("left", "right"), "LT": (None, "left"),
           "<": (None, "left"), "LE": (None, "right"), "<=": (None, "right"),
           "GT": ("right", None), ">": ("right", None), "GE": ("left", None),
           ">=": ("left", None), "BETWEEN": ("left", "right")}


def key_window(table: Any, hash_value: Any, comparison: str | None, values: list[Any],
               limit: int | None, start_key: dict[str, Any] | None, forward: bool
               ) -> list[Any] | None:
    """The items of one partition a key Query's page can reach, in key order: those the
    range condition allows, after the start key, as many as the page takes and one more
    (moto then sees there is a next page); None when the table has no range key or the
    condition is not one run of keys."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    if not table.range_key_attr or (comparison and comparison not in _BOUNDS):
        return None
    global key_windows
    key_windows += 1
    partitions = _SORTED.get(table)
    if partitions is None:
        partitions = _SORTED[table] = SortedPartitions()
    items, keys, sizes = partitions.of(table, hash_value)
    low, high = 0, len(keys)
    if comparison:
        lower, upper = _BOUNDS[comparison]
        first, last = values[0], values[-1]
        if lower is not None:
            low = (bisect.bisect_left if lower == "left" else bisect.bisect_right)(keys, first)
        if upper is not None:
            high = (bisect.bisect_left if upper == "left" else bisect.bisect_right)(keys, last)
    if start_key and table.range_key_attr in start_key:
        start = DynamoType(start_key[table.range_key_attr])
        if forward:
            low = max(low, bisect.bisect_right(keys, start))
        else:
            high = min(high, bisect.bisect_left(keys, start))
    # Item sizes are kept with the sorted partition (dropped with it when it is written):
    # a large partition read page after page, or again, sizes each item once. Sizing
    # was a third of the database's time for a registration reading 60,000 markers.
    positions = range(low, high) if forward else range(high - 1, low - 1, -1)
    taken, size = [], 0
    for position in positions:
        item = items[position]
        taken.append(item)
        known = sizes.get(position)
        if known is None:
            known = sizes[position] = item.size()
        size += known
        if (limit is not None and len(taken) > limit) or size > _SIZE_LIMIT:
            break
    return taken if forward else taken[::-1]


def _partition_changed(table: Any, hash_value: Any) -> None:
    found = _SORTED.get(table)
    if found is not None:
        found.changed(hash_value)


def _every_item(table: Any) -> list[Any]:
    if table.range_key_attr:
        return [item for items in table.items.values() for item in items.values()]
    return list(table.items.values())


def indexes_of(table: Any) -> TableIndexes:
    found = _INDEXES.get(table)
    if found is None:
        found = _INDEXES[table] = TableIndexes(table)
    return found


def forget(table: Any) -> None:
    """The table's items changed behind the index: rebuilt on the next Query."""
    _INDEXES.pop(table, None)
    _SORTED.pop(table, None)


def index_partition(table: Any, index_name: str, hash_value: Any) -> list[Any] | None:
    return indexes_of(table).partition(table, index_name, hash_value)


def _lookup(table: Any, hash_value: Any, range_value: Any) -> Any:
    if range_value is None:
        return table.items.get(hash_value)
    return table.items.get(hash_value, {}).get(range_value)


def apply() -> None:
    """Keeps the indexes in step with moto's writes (puts, deletes and in-place
    updates); transactions forget the indexes of the tables they roll back."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

    original_put, original_delete = Table.put_item, Table.delete_item

    def put_item(self: Any, item_attrs: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        item = original_put(self, item_attrs, *args, **kwargs)
        _partition_changed(self, item.hash_key)
        found = _INDEXES.get(self)
        if found is not None and found.partitions:
            found.place(item)
        return item

    def delete_item(self: Any, hash_key: Any, range_key: Any) -> Any:
        item = original_delete(self, hash_key, range_key)
        _partition_changed(self, hash_key)
        found = _INDEXES.get(self)
        if item is not None and found is not None:
            found.remove(item)
        return item

    Table.put_item = put_item  # type: ignore[method-assign]
    Table.delete_item = delete_item  # type: ignore[method-assign]

    original_update = DynamoDBBackend.update_item

    def update_item(self: Any, table_name: str, key: dict[str, Any], *args: Any,
                    **kwargs: Any) -> Any:
        try:
            return original_update(self, table_name, key, *args, **kwargs)
        finally:   # a failed condition changed nothing; placing again is harmless
            table = self.get_table(table_name)
            if table.hash_key_attr in key:   # an update may create the item
                _partition_changed(table, DynamoType(key[table.hash_key_attr]))
            found = _INDEXES.get(table)
            if found is not None and found.partitions and table.hash_key_attr in key:
                range_value = (DynamoType(key[table.range_key_attr])
                               if table.range_key_attr in key else None)
                item = _lookup(table, DynamoType(key[table.hash_key_attr]), range_value)
                if item is not None:
                    found.place(item)

    update_item.__wrapped__ = original_update  # type: ignore[attr-defined]
    DynamoDBBackend.update_item = update_item  # type: ignore[method-assign]
