"""Global times in messages (`<time:...>`), and level 451: a time that does not parse is
the escaped text as typed instead of an error span."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send


def rendered(account, message_id: int) -> str:
    response = account.get(f"/messages/{message_id}", {"apply_markdown": "true"})
    assert response.ok, response.json
    return response.json["message"]["content"]


def test_global_times_render_for_each_readers_zone(realm):
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.owner, "general", "t",
                      "call at <time:2026-03-01T10:30:00+02:00> or <time:1700000000>")
    assert rendered(realm.member, message_id) == (
        '<p>call at <time datetime="2026-03-01T08:30:00Z">2026-03-01T10:30:00+02:00</time>'
        ' or <time datetime="2023-11-14T22:13:20Z">1700000000</time></p>')


def test_an_invalid_time_is_an_error_span_and_from_level_451_plain_text(realm, advertise):
    advertise(450)
    channel(realm.owner, "general", [realm.owner, realm.member])
    before = send(realm.owner, "general", "t", "at <time:next <b>week> then")
    assert rendered(realm.member, before) == (
        '<p>at <span class="timestamp-error">Invalid time format: next &lt;b</span>'
        "week&gt; then</p>")
    advertise(451)
    after = send(realm.owner, "general", "t", "at <time:soonish> then")
    assert rendered(realm.member, after) == "<p>at &lt;time:soonish&gt; then</p>"
