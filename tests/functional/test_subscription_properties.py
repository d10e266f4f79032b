"""POST /users/me/subscriptions/properties: the nine properties, muting's two names, errors."""
from __future__ import annotations

import pytest

from tests.functional.edit_helpers import channel

ALL_BOOLEANS = ["pin_to_top", "desktop_notifications", "audible_notifications",
                "push_notifications", "email_notifications", "wildcard_mentions_notify"]


def set_properties(account, *changes):
    return account.post("/users/me/subscriptions/properties", {"subscription_data": [
        {"stream_id": s, "property": p, "value": v} for s, p, v in changes]})


def my_subscription(account, stream_id):
    subs = account.get("/users/me/subscriptions").json["subscriptions"]
    return next(s for s in subs if s["stream_id"] == stream_id)


def test_every_property_is_stored_and_announced(realm, register_queue, fetch_events,
                                                drain_events):
    stream_id = channel(realm.owner, "talk", [realm.owner, realm.member])
    drain_events()   # the subscription itself is not what these queues are about
    queue_id = register_queue(realm.member, event_types=["subscription"])["queue_id"]
    changes = [(stream_id, "color", "#a1b2c3")] + [(stream_id, p, True) for p in ALL_BOOLEANS]
    response = set_properties(realm.member, *changes)
    assert response.ok, response.json
    sub = my_subscription(realm.member, stream_id)
    assert sub["color"] == "#a1b2c3" and all(sub[p] is True for p in ALL_BOOLEANS)
    drain_events()
    events = fetch_events(realm.member, queue_id)
    assert sorted((e["property"], e["value"]) for e in events) == sorted(
        (p, v) for _, p, v in changes)
    assert all(e["op"] == "update" and e["stream_id"] == stream_id for e in events)
    # the owner's subscription did not change
    assert my_subscription(realm.owner, stream_id)["pin_to_top"] is False


@pytest.mark.parametrize("name, value, muted", [("is_muted", True, True),
                                                ("in_home_view", False, True),
                                                ("in_home_view", True, False)])
def test_muting_keeps_both_names_as_inverses(realm, register_queue, fetch_events,
                                             drain_events, name, value, muted):
    stream_id = channel(realm.owner, "talk", [realm.member])
    drain_events()   # the subscription itself is not what these queues are about
    queue_id = register_queue(realm.member, event_types=["subscription"])["queue_id"]
    assert set_properties(realm.member, (stream_id, name, value)).ok
    sub = my_subscription(realm.member, stream_id)
    assert (sub["is_muted"], sub["in_home_view"]) == (muted, not muted)
    drain_events()
    events = {e["property"]: e["value"] for e in fetch_events(realm.member, queue_id)}
    assert events == {"is_muted": muted, "in_home_view": not muted}


def test_errors_change_nothing(realm):
    stream_id = channel(realm.owner, "talk", [realm.member])
    other = channel(realm.owner, "other", [realm.owner])
    cases = [
        ([(stream_id, "volume", True)], "volume is not a subscription property"),
        ([(stream_id, "color", "red")], "hex color"),
        ([(stream_id, "pin_to_top", "yes")], "must be true or false"),
        ([(99999, "pin_to_top", True)], "No channel with ID 99999 exists, or you cannot see it"),
        ([(stream_id, "pin_to_top", True), (other, "pin_to_top", True)],
         f"You are not subscribed to channel {other}"),
    ]
    for changes, message in cases:
        response = set_properties(realm.member, *changes)
        assert response.status == 400 and message in response.json["msg"], response.json
    assert my_subscription(realm.member, stream_id)["pin_to_top"] is False
    missing = realm.member.post("/users/me/subscriptions/properties", {
        "subscription_data": [{"stream_id": stream_id, "property": "color"}]})
    assert "missing 'value'" in missing.json["msg"]
    assert realm.member.post("/users/me/subscriptions/properties", {}).status == 400


def test_two_changes_to_one_channel_in_one_request(realm):
    stream_id = channel(realm.owner, "talk", [realm.member])
    assert set_properties(realm.member, (stream_id, "color", "#000000"),
                          (stream_id, "is_muted", True), (stream_id, "color", "#ffffff")).ok
    sub = my_subscription(realm.member, stream_id)
    assert (sub["color"], sub["is_muted"]) == ("#ffffff", True)
