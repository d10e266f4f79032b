"""The local database's item sizes and construction (infra/moto_items.py) against moto's."""
from __future__ import annotations

import pytest
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item

from infra import moto_patches
from infra.moto_items import sizes_remembered

moto_patches.apply()

VALUES = [
    {"S": "plain"}, {"S": "ünïcödé ✓"}, {"S": ""}, {"N": "12345"}, {"N": "-1.5e3"},
    {"B": b"\x00\x01binary"}, {"BOOL": True}, {"BOOL": False}, {"NULL": True},
    {"SS": ["a", "bé"]}, {"NS": ["1", "22"]}, {"BS": [b"x", b"yz"]},
    {"L": [{"S": "a"}, {"N": "1"}, {"L": [{"BOOL": True}]}]},
    {"M": {"x": {"M": {"y": {"L": [{"S": "deep"}, {"NS": ["3"]}]}}}, "é": {"NULL": True}}},
]


@pytest.mark.parametrize("value", VALUES, ids=[next(iter(v)) for v in VALUES])
def test_a_value_s_size_is_moto_s(value):
    assert DynamoType(value).size() == DynamoType.size.__wrapped__(DynamoType(value))


def test_an_item_is_built_and_sized_as_moto_builds_and_sizes_it():
    attrs = {f"a{n}": value for n, value in enumerate(VALUES)}
    ours = Item(DynamoType({"S": "k"}), None, attrs)
    moto_s = Item.__new__(Item)
    Item.__init__.__wrapped__(moto_s, DynamoType({"S": "k"}), None, attrs)
    assert ours.attrs == moto_s.attrs
    assert type(ours.attrs) is type(moto_s.attrs)
    assert ours.size() == Item.size.__wrapped__(moto_s)


def test_an_item_over_moto_s_limit_is_refused_as_moto_refuses_it():
    fits = {"a": {"S": "x" * 200_000}, "b": {"S": "y" * 204_000}}
    Item(DynamoType({"S": "k"}), None, fits)
    with pytest.raises(ItemSizeTooLarge):
        Item(DynamoType({"S": "k"}), None, {**fits, "c": {"S": "z" * 1_000}})
    with pytest.raises(ItemSizeTooLarge):
        Item.__init__.__wrapped__(Item.__new__(Item), DynamoType({"S": "k"}), None,
                                  {**fits, "c": {"S": "z" * 1_000}})


def test_a_remembered_size_is_computed_once_and_forgotten_after():
    item = Item(DynamoType({"S": "k"}), None, {"v": {"S": "abc"}})
    with sizes_remembered():
        first = item.size()
        item.attrs["v"] = DynamoType({"S": "abcdef"})   # (no write happens in a read)
        assert item.size() == first
    assert item.size() == first + 3


def test_an_item_unpickles_whole_without_moto_s_per_key_size_sums(monkeypatch):
    import pickle

    from moto.dynamodb.models.dynamo_type import LimitedSizeDict

    attrs = {f"a{n}": value for n, value in enumerate(VALUES)}
    item = Item(DynamoType({"S": "k"}), None, attrs)
    saved = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)

    def per_key(*_args):
        raise AssertionError("an attribute was set key by key")

    monkeypatch.setattr(LimitedSizeDict, "__setitem__", per_key)
    restored = pickle.loads(saved)
    monkeypatch.undo()
    assert type(restored.attrs) is LimitedSizeDict
    assert restored.attrs == item.attrs and restored.size() == item.size()
    # Still moto's dict: a later write is checked against the limit as before.
    with pytest.raises(ItemSizeTooLarge):
        restored.attrs["big"] = DynamoType({"S": "x" * 405_001})
