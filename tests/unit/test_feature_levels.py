"""The level table: docs/feature-levels.md is generated from it, every row names a test
that exists, and the advertised level follows from the rows (never a typed number)."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from chalicelib.actions.realm.settings import OWN_SETTINGS
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
    assert level + 1 in {c.level for c in CHANGES if c.status == NOT_HONOURED}
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
