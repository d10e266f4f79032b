"""Patterns users supply run in a linear-time engine (issue 39, item 11): a linkifier
whose pattern backtracks without bound in Python's `re` renders a member's message at
once, a pattern RE2 cannot run is refused when it is saved, and alert words match in
one pass."""
from __future__ import annotations

import threading

from tests.functional.edit_helpers import channel, send

BACKTRACKING = {"pattern": "(?P<id>(a+)+)b", "url_template": "https://example.com/{id}"}


def answered_within(seconds: float, call):
    result: list = []
    thread = threading.Thread(target=lambda: result.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    return result[0] if result else None


def test_a_backtracking_linkifier_renders_a_message_at_once(realm, drain_events):
    # GIVEN an administrator's linkifier with nested repetition (each added `a` doubled
    # the time of a non-matching text in a backtracking engine)
    assert realm.admin.post("/realm/filters", BACKTRACKING).ok
    channel(realm.owner, "feed", [realm.owner, realm.member])
    # WHEN a member sends (and renders) an ordinary message of many `a`s, and a topic
    response = answered_within(20, lambda: realm.member.post("/messages", {
        "type": "stream", "to": "feed", "topic": "a" * 50, "content": "a" * 5000 + "!"}))
    # THEN it is answered, and a matching text still links
    assert response is not None, "sending did not end within 20 s"
    assert response.ok, response.json
    linked = send(realm.member, "feed", "t", "see aaab here")
    drain_events()
    fetched = answered_within(20, lambda: realm.member.get(f"/messages/{linked}"))
    assert fetched is not None and fetched.ok
    assert '<a href="https://example.com/aaa"' in fetched.json["message"]["content"]


def test_patterns_re2_cannot_run_are_refused_when_saved(realm):
    for pattern in ("(?<=#)(?P<id>[0-9]+)", "(?P<id>[0-9]+)(?!x)", r"(?P<id>a)\1",
                    "(?P<id>x))(("):
        response = realm.admin.post("/realm/filters", {
            "pattern": pattern, "url_template": "https://example.com/{id}"})
        assert response.status == 400, (pattern, response.json)
        assert "not a usable regular expression" in response.json["msg"], response.json
    # AND RE2's own syntax is accepted: Unicode classes, named groups
    assert realm.admin.post("/realm/filters", {
        "pattern": r"\p{Greek}+-(?P<id>\d+)", "url_template": "https://example.com/{id}"}).ok


def test_alert_words_match_whole_words_in_any_case(realm, drain_events):
    channel(realm.owner, "feed", [realm.owner, realm.member])
    assert realm.member.post("/users/me/alert_words", {
        "alert_words": ["deploy", "c++", "Ünïcode"]}).ok
    hits = [send(realm.owner, "feed", "t", text) for text in (
        "DEPLOY now", "we like c++.", "ünÏCODE works", "(deploy)")]
    misses = [send(realm.owner, "feed", "t", text) for text in (
        "redeploying", "abc++", "deployment", "a" * 5000)]
    drain_events()
    flagged = {m: "has_alert_word" in realm.member.get(f"/messages/{m}").json["message"][
        "flags"] for m in hits + misses}
    assert flagged == {**dict.fromkeys(hits, True), **dict.fromkeys(misses, False)}
