"""Presence formats and the last_update_id answer (chalicelib/rules/presence_rules.py)."""
from __future__ import annotations

from chalicelib.rules.presence_rules import (
    UPDATE_ID_MARGIN_MS,
    answered_last_update_id,
    legacy_event_status,
    legacy_presence,
    legacy_status,
)


def test_legacy_status_is_active_while_recently_active():
    assert legacy_status(1000, 1000, 1100) == ("active", 1000)
    assert legacy_status(1000, 1200, 1121 + 100) == ("idle", 1200)
    assert legacy_presence(1000, 1000, 1000)["aggregated"] == {
        "client": "website", "status": "active", "timestamp": 1000}


def test_legacy_event_status_compares_activity_with_the_connection():
    assert legacy_event_status(1000, 1070) == ("active", 1000)
    assert legacy_event_status(1000, 1071) == ("idle", 1071)


def test_answered_last_update_id():
    start = 10_000_000
    # nothing passed, nothing seen: -1; nothing new: what was passed
    assert answered_last_update_id(None, None, start) == -1
    assert answered_last_update_id(500, None, start) == 500
    # an old write is answered as it is; a recent one is held back by the margin
    assert answered_last_update_id(None, 1000, start) == 1000
    assert answered_last_update_id(None, start - 5, start) == start - UPDATE_ID_MARGIN_MS
    # never below what the client passed
    assert answered_last_update_id(start, start + 1, start) == start
