"""Items read from DynamoDB build the same models as PynamoDB's own construction
(chalicelib/models/base.py BaseModel._instantiate)."""
from __future__ import annotations

import importlib
import pkgutil
from datetime import UTC, datetime

import pytest
from pynamodb.attributes import AttributeContainer, MapAttribute

import chalicelib.models
from chalicelib.models.base import BaseModel
from chalicelib.models.events import EventQueue
from chalicelib.models.users import User

for module in pkgutil.iter_modules(chalicelib.models.__path__):
    importlib.import_module(f"chalicelib.models.{module.name}")


def _models() -> list[type[BaseModel]]:
    found, waiting = [], list(BaseModel.__subclasses__())
    while waiting:
        model = waiting.pop()
        waiting.extend(model.__subclasses__())
        if not getattr(model.Meta, "abstract", False):
            found.append(model)
    return sorted(found, key=lambda m: m.__name__)


def _values(item: BaseModel) -> dict:
    """attribute_values, a map attribute as its plain dict (they compare by identity)."""
    return {name: (value.as_dict(), type(value)) if isinstance(value, MapAttribute)
            else (value, type(value)) for name, value in item.attribute_values.items()}


def _pynamodb_s(model: type[BaseModel], raw: dict) -> BaseModel:
    return AttributeContainer._instantiate.__func__(model, raw)  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", _models(), ids=lambda m: m.__name__)
def test_an_item_of_only_its_keys_reads_with_pynamodb_s_defaults(model):
    raw = {name: {"S": "k"} if attr.attr_type == "S" else {"N": "7"}
           for name, attr in model.get_attributes().items()
           if attr.is_hash_key or attr.is_range_key}
    ours, theirs = model.from_raw_data(raw), _pynamodb_s(model, raw)
    assert type(ours) is type(theirs)
    assert _values(ours) == _values(theirs)


def test_a_queue_with_every_attribute_and_a_null_reads_as_pynamodb_reads_it():
    queue = EventQueue("q1", realm_id=2, user_id=3, acked_through=9,
                       options={"event_types": ["message"], "narrow": [["is", "dm"]]},
                       receives_typing_notifications=False, role=400, wake_url="https://w",
                       created=5, expires_at=datetime(2030, 1, 1, tzinfo=UTC))
    raw = queue.serialize()
    raw["role"] = {"NULL": True}
    ours, theirs = EventQueue.from_raw_data(raw), _pynamodb_s(EventQueue, raw)
    assert _values(ours) == _values(theirs)
    assert ours.role is None and ours.options["narrow"] == [["is", "dm"]]
    assert ours.expires_at == datetime(2030, 1, 1, tzinfo=UTC)


def test_a_map_attribute_reads_as_pynamodb_reads_it_and_defaults_are_not_shared():
    raw = {"realm_id": {"N": "1"}, "user_id": {"N": "2"},
           "settings": {"M": {"a": {"N": "1"}, "b": {"L": []}}}}
    ours, theirs = User.from_raw_data(raw), _pynamodb_s(User, raw)
    assert _values(ours) == _values(theirs)
    assert ours.settings.as_dict() == {"a": 1, "b": []}
    one, two = User.from_raw_data({"realm_id": {"N": "1"}, "user_id": {"N": "3"}}), \
        User.from_raw_data({"realm_id": {"N": "1"}, "user_id": {"N": "4"}})
    assert one.profile_data is not two.profile_data
