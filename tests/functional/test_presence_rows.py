"""A realm's presence read as rows (models/presence.py, `read_presence_rows`), as
registration and every presence ping read it, holds what the models hold, so every
presence answer is what it was."""
from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime, timedelta

from chalicelib.models.presence import Presence, PresenceRow, read_presence_rows


def test_rows_hold_what_the_models_hold(realm):
    now = datetime.now(UTC).replace(microsecond=0)
    # GIVEN a present person, one never active, a hidden marker and an expired item
    Presence(realm.realm_id, 101, email="a@x.example", active_at=1_700_000_100,
             connected_at=1_700_000_200, update_id=1_700_000_200_123,
             expires_at=now + timedelta(days=14)).save()
    Presence(realm.realm_id, 102, email="b@x.example", connected_at=1_700_000_300,
             update_id=5, expires_at=now + timedelta(days=1)).save()
    Presence(realm.realm_id, 103, hidden=True).save()
    Presence(realm.realm_id, 104, email="d@x.example", connected_at=1_600_000_000,
             expires_at=now - timedelta(days=1)).save()
    models = {p.user_id: p for p in Presence.query(realm.realm_id)}
    rows = {r.user_id: r for r in read_presence_rows(realm.realm_id)}
    # THEN each row has the model's values, times and visibility
    assert set(rows) == set(models) >= {101, 102, 103, 104}
    for user_id, model in models.items():
        row = rows[user_id]
        assert {f.name: getattr(row, f.name) for f in fields(PresenceRow)} == {
            f.name: getattr(model, f.name) for f in fields(PresenceRow)}
        assert row.times() == model.times()
        assert row.is_visible(now) == model.is_visible(now)
    assert [rows[u].is_visible(now) for u in (101, 102, 103, 104)] == [
        True, True, False, False]
    assert rows[102].times() == (1_700_000_300, 1_700_000_300)
