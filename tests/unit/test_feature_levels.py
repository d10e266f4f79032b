"""The level table: docs/feature-levels.md is generated from it, every row names a test
that exists, and the advertised level follows from the rows (never a typed number)."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from chalicelib.actions.workflows.realm_update import OWN_SETTINGS
from chalicelib.api.server import get_server_settings
from chalicelib.core import feature_levels
from chalicelib.core.feature_levels import (
    CHANGES,
    EXTENSIONS_PARAMETER,
    HONOURED,
    NOT_HONOURED,
    NOT_OFFERED,
    REALM_SETTINGS_CAPABILITY,
    REPORTED,
    Change,
    advertised_level,
)
from infra.write_feature_levels import DOCUMENT, render
from tests.reference_contract import EXTENSIONS

ROOT = Path(__file__).resolve().parents[2]


def test_the_document_is_generated_from_the_table():
    assert DOCUMENT.read_text(encoding="utf-8") == render(), \
        "docs/feature-levels.md is stale: run `make feature-levels`"


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: f"{c.level}-{c.change[:40]}")
def test_each_row_is_proved_by_a_test_that_exists(change: Change):
    if change.status in (NOT_OFFERED, NOT_HONOURED) or change.change.startswith("No changes"):
        return   # nothing is served to prove, or it caps the level
    path, _, name = change.test.partition("::")
    source = ROOT / path
    assert source.is_file(), f"level {change.level}: no file {path}"
    assert re.search(rf"^def {re.escape(name)}\(", source.read_text(encoding="utf-8"),
                     re.MULTILINE), f"level {change.level}: no test {name} in {path}"


def test_the_advertised_level_stops_below_the_first_change_not_honoured():
    level = advertised_level()
    assert not [c for c in CHANGES if c.level <= level and c.status == NOT_HONOURED]
    # Capped just below the first change not honoured, or the table's last level
    assert level + 1 in {c.level for c in CHANGES if c.status == NOT_HONOURED} or \
        level == max(c.level for c in CHANGES)
    # The rule itself, on a made-up table
    table = (Change(10, "a", "", "t"), Change(12, "b", "", "", NOT_OFFERED),
             Change(14, "c", "", "", NOT_HONOURED), Change(15, "d", "", "t", REPORTED))
    assert advertised_level(table) == 13
    assert advertised_level(table[:2]) == 12
    assert advertised_level((Change(5, "e", "", "t", HONOURED),)) == 5


def test_the_level_is_not_a_typed_constant(monkeypatch):
    from chalicelib import config
    from chalicelib.actions.realm.reads.server_settings import server_settings

    assert not hasattr(config, "SERVICE_FEATURE_LEVEL")
    # A row not honoured lowers what the server advertises
    monkeypatch.setattr(feature_levels, "CHANGES", (*CHANGES, Change(
        380, "made up", "", "", NOT_HONOURED)))
    assert server_settings("localhost", "http")["service_feature_level"] == 379


def test_extension_names_are_the_ones_served():
    assert EXTENSIONS_PARAMETER in inspect.signature(
        get_server_settings.__wrapped__).parameters   # type: ignore[attr-defined]
    assert set(EXTENSIONS) == {"event_queue_websocket_url", "empty_topic_display_name"}
    # The organization setting's events are gated by the realm-settings capability.
    assert "empty_topic_display_name" in OWN_SETTINGS
    assert REALM_SETTINGS_CAPABILITY in EXTENSIONS["empty_topic_display_name"]
    text = DOCUMENT.read_text(encoding="utf-8")
    assert all(f"`{name}`" in text for name in EXTENSIONS)


def test_what_a_change_sends_names_a_known_shape_and_an_optional_key():
    from typing import NotRequired, get_origin, get_type_hints

    from chalicelib.actions.channels.reads.channels import StreamDict
    from chalicelib.actions.workflows.realm_update import RealmSettingChanges

    declared = {"channel": get_type_hints(StreamDict, include_extras=True),
                "realm_setting": get_type_hints(RealmSettingChanges, include_extras=True)}
    for change in CHANGES:
        for name in change.sends:
            shape, key = name.split(".", 1)
            assert shape in feature_levels.SHAPES, name
            # A key that may be held back must say, in its type, that it may be absent
            # (RealmSettingChanges is total=False: every key is).
            hint = declared.get(shape, {}).get(key)
            if change.level > advertised_level() and shape == "channel" and hint:
                assert get_origin(hint) is NotRequired, f"{name}: declare it NotRequired"


def test_withheld_keys_are_those_of_changes_above_the_level(monkeypatch, advertise):
    advertise(390)
    level = advertised_level()
    above = {name for c in feature_levels.CHANGES if c.level > level for name in c.sends} | {
        name for c in feature_levels.CHANGES if c.level <= level for name in c.removes}
    assert {f"{shape}.{key}" for shape in feature_levels.SHAPES
            for key in feature_levels.withheld(shape)} == above
    assert "channel.subscriber_count" in above
    assert "register.realm_is_zephyr_mirror_realm" not in above   # removed at 426
    assert feature_levels.at_advertised_level("channel", {"subscriber_count": 1, "name": "a"}
                                              ) == {"name": "a"}
    # A table that honours everything lets every addition out, and holds back what
    # its changes removed (computed again for it)
    monkeypatch.setattr(feature_levels, "CHANGES", tuple(
        Change(c.level, c.change, c.where, c.test, HONOURED, c.sends, c.removes)
        for c in CHANGES))
    assert {f"{shape}.{key}" for shape in feature_levels.SHAPES
            for key in feature_levels.withheld(shape)} == {
        name for c in CHANGES for name in c.removes}
    assert "realm_is_zephyr_mirror_realm" in feature_levels.withheld("register")
    assert feature_levels.level_reached(400)


def test_the_strict_checker_refuses_a_later_field_above_the_level(advertise):
    from tests.reference_contract import strict_problems

    advertise(390)
    level = advertised_level()
    schema = {"type": "object", "properties": {"name": {"type": "string"}},
              "additionalProperties": False}
    counted = {"name": "a", "subscriber_count": 2}
    # A key the document lists with a placeholder level is held to the table too
    listed = {"type": "object", "properties": {"topics_policy": {
        "type": "string",
        "description": "**Changes**: New in Zulip 10.0 (feature level ZF-d9265f)."}}}
    assert strict_problems(counted, schema, "x") == [
        f"x.subscriber_count: added at level 394, above the advertised {level}"]
    assert strict_problems({"topics_policy": "inherit"}, listed, "x") == [
        f"x.topics_policy: added at level 392, above the advertised {level}"]
    assert strict_problems({"name": "a", "folder_id": None}, schema, "x") == []
    advertise(394)
    assert strict_problems(counted, schema, "x") == []
    assert strict_problems({"topics_policy": "inherit"}, listed, "x") == []
