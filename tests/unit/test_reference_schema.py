"""The reference-schema checker the registration test relies on: it must find what is
wrong, or that test would pass on anything."""
from __future__ import annotations

from tests.reference_schema import fetch_types_of, problems, renamed

USER = {"type": "object", "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"},
    "zulip_level": {"type": "integer"},
    "note": {"type": "string", "nullable": True},
    "tags": {"type": "array", "items": {"type": "string"}},
    "group": {"oneOf": [{"type": "integer"}, {"type": "object", "properties": {
        "direct_members": {"type": "array", "items": {"type": "integer"}}}}]},
}}


def good() -> dict:
    return {"id": 1, "name": "Ann", "service_level": 3, "note": None, "tags": ["a"],
            "group": 7}


def test_a_matching_value_has_no_problems():
    assert problems(good(), USER, "user") == []
    assert problems({**good(), "group": {"direct_members": [1]}}, USER, "user") == []


def test_missing_keys_wrong_types_and_nulls_are_found():
    value = good()
    del value["name"]
    value.update(id=True, tags=["a", 2], group="x")
    found = problems(value, USER, "user")
    assert "user.name: missing" in found
    assert any(p.startswith("user.id: bool") for p in found)      # a bool is no integer
    assert any(p.startswith("user.tags[]: int") for p in found)
    assert any(p.startswith("user.group: matches no alternative") for p in found)
    assert problems({**good(), "id": None}, USER, "user") == ["user.id: null, not allowed"]


def test_the_naming_rule_applies_to_keys():
    assert renamed("zulip_feature_level") == "service_feature_level"
    value = good()
    del value["service_level"]
    value["zulip_level"] = 3
    assert problems(value, USER, "user") == ["user.service_level: missing"]


def test_required_lists_and_allowed_absences():
    schema = {**USER, "required": ["id"]}
    assert problems({"id": 1}, schema, "user") == []
    items = {"type": "array", "items": USER}
    partial = good()
    del partial["note"]
    assert problems([partial], items, "users") == ["users[].note: missing"]
    assert problems([partial], items, "users", frozenset({"users[].note"})) == []
    by_id = {"type": "object", "additionalProperties": USER}
    assert problems({"1": partial}, by_id, "m") == ["m{}.note: missing"]


def test_fetch_types_come_from_the_description():
    assert fetch_types_of({"description": "Present if `realm` is present in "
                                          "`fetch_event_types`."}) == {"realm"}
    assert fetch_types_of({"description": "Present if `message` and "
                                          "`update_message_flags` are both present in "
                                          "`event_types`."}) == {"message",
                                                                 "update_message_flags"}
    assert fetch_types_of({"description": "The queue's id."}) is None


def test_reference_schema_gaps_let_through_only_what_they_name():
    from tests.reference_contract import _reference_gap
    retention = {"type": "stream", "op": "update", "property": "message_retention_days",
                 "value": None}
    assert _reference_gap(retention, "event.value: null, not allowed")
    assert not _reference_gap({**retention, "property": "name"},
                              "event.value: null, not allowed")
    assert not _reference_gap(retention, "event.extra: not in the reference")
    no_emoji = {"type": "user_status", "user_id": 1, "reaction_type": ""}
    assert _reference_gap(no_emoji, "event.reaction_type: '' not among ['unicode_emoji']")
    assert not _reference_gap(no_emoji, "event.reaction_type: 'x' not among ['unicode_emoji']")
