"""include_subscribers=partial (the reference's level 412): large channels list their bots
and recently active subscribers as `partial_subscribers`, small ones every subscriber;
below level 412 the field never goes out and `partial` is answered as `true`. Also
POST /register leaves Gravatar URLs to clients that ask (client_gravatar)."""
from __future__ import annotations

import pytest

from chalicelib.actions.channels.reads import subscribers as subscriber_reads
from chalicelib.core.feature_levels import PARTIAL_SUBSCRIBERS_LEVEL


@pytest.fixture
def channels(realm):
    """`large` (6 subscribers: the member, the guest, a bot, two idle people and one who
    was active) and `small` (the member)."""
    bot = realm.add_user("Beep Bot", is_bot=True)
    idle = [realm.add_user(f"Idle {n}") for n in range(2)]
    active = realm.add_user("Busy Bee")
    assert active.post("/users/me/presence", {"status": "active"}).ok
    everyone = [realm.member.user_id, realm.guest.user_id, bot.user_id, active.user_id,
                *(u.user_id for u in idle)]
    for name, principals in (("large", everyone), ("small", [realm.member.user_id])):
        response = realm.owner.post("/users/me/subscriptions", {
            "subscriptions": [{"name": name}], "principals": principals})
        assert response.ok, response.json
    return {"bot": bot.user_id, "active": active.user_id,
            "everyone": sorted(everyone)}


def _by_name(entries):
    return {entry["name"]: entry for entry in entries}


def _register(account, include):
    response = account.post("/register", {"fetch_event_types": ["subscription"],
                                          "event_types": ["message"],
                                          "include_subscribers": include})
    assert response.ok, response.json
    return response.json


def test_large_channels_list_bots_and_the_recently_active(realm, channels, monkeypatch,
                                                          advertise):
    monkeypatch.setattr(subscriber_reads, "MIN_PARTIAL_SUBSCRIBERS_CHANNEL_SIZE", 5)
    advertise(PARTIAL_SUBSCRIBERS_LEVEL)
    state = _register(realm.member, "partial")
    shown = _by_name(state["subscriptions"])
    large, small = shown["large"], shown["small"]
    # The large channel: its bot and the one who was active, and no full list.
    assert large["partial_subscribers"] == sorted([channels["bot"], channels["active"]])
    assert "subscribers" not in large and large["subscriber_count"] == 6
    # The small one: everyone, as `subscribers`.
    assert small["subscribers"] == [realm.member.user_id]
    assert "partial_subscribers" not in small
    # GET /users/me/subscriptions answers the same way.
    listed = realm.member.get("/users/me/subscriptions", {"include_subscribers": "partial"})
    assert listed.ok, listed.json
    again = _by_name(listed.json["subscriptions"])
    assert again["large"]["partial_subscribers"] == large["partial_subscribers"]
    assert again["small"]["subscribers"] == small["subscribers"]
    # true still lists everyone.
    full = _by_name(_register(realm.member, True)["subscriptions"])
    assert full["large"]["subscribers"] == channels["everyone"]


def test_below_level_412_partial_is_answered_as_true(realm, channels, monkeypatch, advertise):
    advertise(PARTIAL_SUBSCRIBERS_LEVEL - 1)
    monkeypatch.setattr(subscriber_reads, "MIN_PARTIAL_SUBSCRIBERS_CHANNEL_SIZE", 5)
    shown = _by_name(_register(realm.member, "partial")["subscriptions"])
    assert shown["large"]["subscribers"] == channels["everyone"]
    assert all("partial_subscribers" not in entry for entry in shown.values())
    listed = realm.member.get("/users/me/subscriptions", {"include_subscribers": "partial"})
    assert _by_name(listed.json["subscriptions"])["large"]["subscribers"] == \
        channels["everyone"]


def test_include_subscribers_takes_only_its_values(realm, channels):
    assert all("subscribers" not in entry
               for entry in _register(realm.member, False)["subscriptions"])
    for wrong in ("maybe", "1", "[]"):
        response = realm.member.post("/register", {"include_subscribers": wrong})
        assert response.status == 400 and response.json["code"] == "BAD_REQUEST"
        assert "include_subscribers" in response.json["msg"]


def test_register_leaves_gravatar_urls_to_clients_unless_they_ask_for_them(realm):
    params = {"fetch_event_types": ["realm_user"], "event_types": ["message"]}
    plain = realm.member.post("/register", {**params, "client_gravatar": False}).json
    lean = realm.member.post("/register", {**params, "client_gravatar": True}).json
    default = realm.member.post("/register", params).json
    assert all(u["avatar_url"].startswith("https://secure.gravatar.com/")
               for u in plain["realm_users"])
    assert all(u["avatar_url"] is None for u in lean["realm_users"])
    # true by default, as the reference's for signed-in clients (since its level 92)
    assert default["realm_users"] == lean["realm_users"]
    # The caller's own record keeps its URL, as the reference's does.
    assert lean["avatar_url"] == plain["avatar_url"] is not None
