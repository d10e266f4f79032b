"""anchor=date as a hostile member would use it (issue 39, items 7-9): the search for the
date ends whatever ids are missing, flags by narrow take it, and the answer depends only
on messages the caller may read. And the request deadline every read checks."""
from __future__ import annotations

import threading
from datetime import UTC, datetime

from tests.functional.edit_helpers import channel, make_old, send

DAY = 86400
LARGEST = 10**16


def yesterday() -> str:
    return datetime.fromtimestamp(datetime.now(UTC).timestamp() - DAY, UTC).isoformat()


def answered_within(seconds: float, call):
    """The call's result, or None if it had not answered after `seconds` (the request
    is left running in its thread, as a client that gave up leaves it)."""
    result: list = []
    thread = threading.Thread(target=lambda: result.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    return result[0] if result else None


def test_the_date_search_ends_when_deleted_messages_sit_below_the_date(realm,
                                                                       drain_events):
    channel(realm.owner, "feed", [realm.owner, realm.member])
    for older in range(1, 5):
        # GIVEN `older` old messages, then a deleted one, then the first at the date
        old = [send(realm.owner, "feed", "t", f"old {n}") for n in range(older + 1)]
        first = send(realm.owner, "feed", "t", "the first since yesterday")
        make_old(realm.realm_id, old, 2 * DAY)
        assert realm.owner.delete(f"/messages/{old[-1]}").ok
        drain_events()
        # WHEN a member anchors at yesterday THEN the answer comes, and it is that message
        response = answered_within(20, lambda: realm.member.get("/messages", {
            "anchor": "date", "anchor_date": yesterday(), "num_before": 0,
            "num_after": 0, "narrow": [{"operator": "channel", "operand": "feed"}]}))
        assert response is not None, f"no answer after 20 s ({older} older)"
        assert response.ok, response.json
        assert response.json["anchor"] == first, (older, response.json)
        assert [m["id"] for m in response.json["messages"]] == [first]
        # the next round's messages are all newer
        make_old(realm.realm_id, [first], 2 * DAY)


def test_flags_by_narrow_take_a_date_anchor(realm, drain_events):
    channel(realm.owner, "feed", [realm.owner, realm.member])
    old = [send(realm.owner, "feed", "t", f"old {n}") for n in range(2)]
    new = [send(realm.owner, "feed", "t", f"new {n}") for n in range(2)]
    make_old(realm.realm_id, old, 2 * DAY)
    drain_events()
    response = realm.member.post("/messages/flags/narrow", {
        "anchor": "date", "anchor_date": yesterday(), "num_before": 0, "num_after": 10,
        "narrow": [{"operator": "channel", "operand": "feed"}], "op": "add",
        "flag": "starred"})
    assert response.ok, response.json
    assert (response.json["first_processed_id"], response.json["last_processed_id"],
            response.json["processed_count"]) == (new[0], new[1], 2)
    # AND it refuses a date anchor without a date, or a date without the anchor
    for params in ({"anchor": "date"}, {"anchor": "newest", "anchor_date": yesterday()},
                   {"anchor": "date", "anchor_date": "soon"}):
        refused = realm.member.post("/messages/flags/narrow", {
            "num_before": 0, "num_after": 1, "narrow": [], "op": "add", "flag": "read",
            **params})
        assert refused.status == 400 and "anchor_date" in refused.json["msg"], refused.json


def test_the_date_anchor_names_only_messages_the_caller_may_read(realm, drain_events):
    # GIVEN an old public message, then one in a private channel the member is not in,
    # then a public one
    channel(realm.owner, "feed", [realm.owner, realm.member])
    channel(realm.owner, "vault", [realm.owner], invite_only=True)
    old = send(realm.owner, "feed", "t", "old")
    secret = send(realm.owner, "vault", "t", "secret")
    public = send(realm.owner, "feed", "t", "public")
    make_old(realm.realm_id, [old], 2 * DAY)
    drain_events()
    for narrow in ([], [{"operator": "channel", "operand": "feed"}]):
        response = realm.member.get("/messages", {"anchor": "date", "anchor_date": yesterday(),
                                                  "num_before": 0, "num_after": 0,
                                                  "narrow": narrow})
        assert response.ok, response.json
        # THEN the anchor is the public message, never the private one's id
        assert response.json["anchor"] == public, response.json
        assert response.json["found_anchor"] is True
    # AND the owner, who may read it, is anchored at the private message
    assert realm.owner.get("/messages", {"anchor": "date", "anchor_date": yesterday(),
                                         "num_before": 0, "num_after": 0}
                           ).json["anchor"] == secret
    # AND with nothing readable since the date, the answer is the newest end
    assert realm.member.get("/messages", {
        "anchor": "date", "anchor_date": yesterday(), "num_before": 1, "num_after": 0,
        "narrow": [{"operator": "dm", "operand": [realm.owner.user_id]}]}
    ).json["anchor"] == LARGEST


def test_a_request_past_its_deadline_stops_with_a_clean_error(realm, monkeypatch):
    channel(realm.owner, "feed", [realm.owner, realm.member])
    send(realm.owner, "feed", "t", "hello")
    # GIVEN requests get no time at all
    monkeypatch.setenv("REQUEST_SECONDS", "0")
    response = realm.member.get("/messages", {"anchor": "newest", "num_before": 5,
                                              "num_after": 0})
    # THEN the first read stops the request: a client error in the envelope, not a 500
    assert response.status == 400, response.json
    assert response.json["code"] == "BAD_REQUEST" and "time limit" in response.json["msg"]
    # AND with its time back the same request is answered
    monkeypatch.setenv("REQUEST_SECONDS", "24")
    assert realm.member.get("/messages", {"anchor": "newest", "num_before": 5,
                                          "num_after": 0}).ok
