"""Presence: POST /users/me/presence, GET /users/{user}/presence, GET /realm/presence,
presence events and the presence state of POST /register."""
from __future__ import annotations

import time

import pytest

from chalicelib.models.presence import Presence
from chalicelib.models.users import User
from chalicelib.rules import presence_rules
from chalicelib.rules.realm_settings import system_group_id
from tests.functional.edit_helpers import channel


@pytest.fixture
def clock(monkeypatch):
    """The presence clock, moved by the test instead of waiting."""
    class Clock:
        now = time.time()

        def advance(self, seconds: float) -> None:
            self.now += seconds

    fake = Clock()
    monkeypatch.setattr(presence_rules, "now", lambda: fake.now)
    return fake


def ping(account, status="active", **params):
    response = account.post("/users/me/presence", {"status": status, **params})
    assert response.ok, response.json
    return response.json


def stored(realm, account):
    return Presence.get_or_none(realm.realm_id, account.user_id)


def presence_events(account, queue_id, fetch_events):
    return [{k: v for k, v in e.items() if k != "id"}
            for e in fetch_events(account, queue_id) if e["type"] == "presence"]


def test_pings_record_presence_and_answer_with_the_realms(realm, clock):
    # GIVEN a member active three minutes ago and idle (connected) since
    ping(realm.member)
    member_active_at = int(clock.now)
    clock.advance(180)
    ping(realm.member, "idle", ping_only=True)
    # WHEN the owner reports being active (the legacy answer: keyed by email)
    body = ping(realm.owner)
    now = int(clock.now)
    # THEN the answer holds both, in the legacy format, with the server's time
    assert set(body) == {"result", "msg", "presences", "server_timestamp",
                         "presence_last_update_id"}
    assert body["server_timestamp"] == pytest.approx(clock.now)
    assert body["presences"][realm.owner.email] == {
        "website": {"client": "website", "status": "active", "timestamp": now,
                    "pushable": False},
        "aggregated": {"client": "website", "status": "active", "timestamp": now}}
    assert body["presences"][realm.member.email]["aggregated"] == {
        "client": "website", "status": "idle", "timestamp": now}
    # AND slim_presence asks for the modern format, keyed by user id
    slim = ping(realm.guest, slim_presence=True)["presences"]
    assert slim[str(realm.owner.user_id)] == {"active_timestamp": now, "idle_timestamp": now}
    assert slim[str(realm.member.user_id)] == {"active_timestamp": member_active_at,
                                               "idle_timestamp": now}


def test_a_user_costs_at_most_one_write_a_minute(realm, clock):
    # GIVEN a recorded ping
    ping(realm.member)
    first = stored(realm, realm.member)
    # WHEN more pings come within a minute (other clients, other tabs)
    for _ in range(3):
        clock.advance(15)
        ping(realm.member, ping_only=True)
        ping(realm.member, "idle")
    # THEN nothing was rewritten
    assert stored(realm, realm.member).update_id == first.update_id
    # AND a minute on, the next ping refreshes it, keeping the user's last activity
    clock.advance(20)
    ping(realm.member, "idle", ping_only=True)
    after = stored(realm, realm.member)
    assert after.update_id > first.update_id
    assert (after.connected_at, after.active_at) == (int(clock.now), first.active_at)
    # AND the item expires two weeks after the last connection (TTL)
    assert abs(after.expires_at.timestamp() - (clock.now + 14 * 86400)) < 2


def test_ping_only_answers_with_nothing_but_records(realm, clock):
    body = ping(realm.member, ping_only=True)
    assert body == {"result": "success", "msg": ""}
    assert stored(realm, realm.member).connected_at == int(clock.now)


def test_last_update_id_returns_only_what_changed(realm, clock):
    ping(realm.owner)
    clock.advance(30)
    # GIVEN a client's first fetch
    first = ping(realm.member, last_update_id=-1)
    assert set(first["presences"]) == {str(realm.owner.user_id), str(realm.member.user_id)}
    last = first["presence_last_update_id"]
    # WHEN only the member pings on, THEN the owner's entry never comes again; an entry
    # written just before a fetch may come once more (the margin for writes in flight)
    for _ in range(2):
        clock.advance(60)
        ping(realm.member, ping_only=True)
        again = ping(realm.member, last_update_id=last)
        assert set(again["presences"]) <= {str(realm.member.user_id)}
        assert again["presence_last_update_id"] >= last
        last = again["presence_last_update_id"]
    clock.advance(30)
    settled = ping(realm.member, last_update_id=last)["presence_last_update_id"]
    quiet = ping(realm.member, last_update_id=settled)
    assert quiet["presences"] == {} and quiet["presence_last_update_id"] == settled
    # WHEN the owner pings again, THEN the owner's entry comes (with the member's own,
    # which this ping, a minute after the last, refreshed)
    clock.advance(30)
    ping(realm.owner, "idle")
    changed = ping(realm.member, last_update_id=settled)
    assert set(changed["presences"]) == {str(realm.owner.user_id), str(realm.member.user_id)}
    assert changed["presence_last_update_id"] >= settled


def test_coming_online_sends_a_presence_event_and_regular_pings_do_not(
        realm, clock, register_queue, fetch_events, drain_events):
    queue_id = register_queue(realm.owner, event_types=["presence"])["queue_id"]
    # WHEN a member comes online, pings on, goes idle and comes back after a while
    ping(realm.member)
    first_at = int(clock.now)
    for _ in range(3):
        clock.advance(60)
        ping(realm.member)
    clock.advance(60)
    ping(realm.member, "idle")
    clock.advance(60)
    ping(realm.member, "idle")
    clock.advance(60)
    ping(realm.member)
    back_at = int(clock.now)
    drain_events()
    # THEN others heard twice: when they came online and when they came back
    events = presence_events(realm.owner, queue_id, fetch_events)
    assert [e["presence"]["website"]["timestamp"] for e in events] == [first_at, back_at]
    assert events[0] == {"type": "presence", "user_id": realm.member.user_id,
                         "email": realm.member.email,
                         "server_timestamp": pytest.approx(first_at, abs=1),
                         "presence": {"website": {"client": "website", "status": "active",
                                                  "timestamp": first_at, "pushable": False}}}


def test_presence_enabled_false_hides_a_user(realm, clock, register_queue, fetch_events,
                                             drain_events):
    ping(realm.member)
    assert realm.member.patch("/settings", {"presence_enabled": False}).ok
    # THEN others no longer see them, and their pings record nothing
    clock.advance(120)
    assert realm.member.email not in ping(realm.owner)["presences"]
    ping(realm.member)
    assert realm.member.email not in ping(realm.owner)["presences"]
    hidden = realm.owner.get(f"/users/{realm.member.user_id}/presence")
    assert hidden.json["msg"] == f"{realm.member.user_id} has no presence information yet"
    drain_events()
    queue_id = register_queue(realm.owner, event_types=["presence"])["queue_id"]
    # WHEN they show themselves again (here through the deprecated status `away`)
    assert realm.member.post("/users/me/status", {"away": False}).ok
    ping(realm.member)
    drain_events()
    assert realm.member.email in ping(realm.owner)["presences"]
    assert [e["user_id"] for e in presence_events(realm.owner, queue_id, fetch_events)] == [
        realm.member.user_id]


def test_a_hidden_user_without_a_marker_is_found_out_on_first_ping(realm):
    # GIVEN presence_enabled false stored without the presence marker (older data)
    User(realm.realm_id, realm.member.user_id).update(
        actions=[User.settings["presence_enabled"].set(False)])
    ping(realm.member)
    assert stored(realm, realm.member).hidden is True
    assert realm.member.email not in ping(realm.owner)["presences"]


def test_guests_see_only_users_they_can_access(realm, clock, register_queue, fetch_events,
                                               drain_events):
    assert realm.owner.patch("/realm", {"can_access_all_users_group": {
        "new": system_group_id("role:members")}}).ok
    channel(realm.owner, "lobby", [realm.owner, realm.guest])
    queue_id = register_queue(realm.guest, event_types=["presence"])["queue_id"]
    ping(realm.owner)
    ping(realm.member)
    drain_events()
    seen = ping(realm.guest)["presences"]
    assert set(seen) == {realm.owner.email, realm.guest.email}
    assert [e["user_id"] for e in presence_events(realm.guest, queue_id, fetch_events)] == [
        realm.owner.user_id]
    assert realm.guest.get(f"/users/{realm.member.user_id}/presence").json["msg"] == \
        "No such person in this organization."
    state = register_queue(realm.guest, fetch_event_types=["presence"], slim_presence=True)
    assert set(state["presences"]) == {str(realm.owner.user_id), str(realm.guest.user_id)}


def test_realm_presence_and_one_users_presence(realm, clock, advertise):
    advertise(486)  # the legacy presence form (487 adds the modern one)
    ping(realm.member)
    at = int(clock.now)
    realm_wide = realm.owner.get("/realm/presence").json
    assert set(realm_wide) == {"result", "msg", "presences", "server_timestamp"}
    assert realm_wide["presences"][realm.member.email]["website"]["timestamp"] == at
    # One user, by id or by email: status and timestamp per client and aggregated
    expected = {"website": {"status": "active", "timestamp": at},
                "aggregated": {"status": "active", "timestamp": at}}
    for key in (realm.member.user_id, realm.member.email):
        response = realm.owner.get(f"/users/{key}/presence")
        assert response.ok and response.json["presence"] == expected, response.json
    # An old presence shows idle, and the aggregate says offline
    clock.advance(3600)
    old = realm.owner.get(f"/users/{realm.member.user_id}/presence").json["presence"]
    assert old == {"website": {"status": "idle", "timestamp": at},
                   "aggregated": {"status": "offline", "timestamp": at}}


def test_one_users_presence_in_the_modern_format_and_then_in_both(realm, clock,
                                                                    advertise):
    ping(realm.member)
    at = int(clock.now)
    # Level 487: the modern timestamps alone
    advertise(487)
    answer = realm.owner.get(f"/users/{realm.member.user_id}/presence").json
    assert answer["presence"] == {"active_timestamp": at, "idle_timestamp": at}
    assert "server_timestamp" not in answer
    # Level 497: the legacy dicts again beside them, and when the server read it
    advertise(497)
    answer = realm.owner.get(f"/users/{realm.member.email}/presence").json
    assert answer["presence"] == {
        "active_timestamp": at, "idle_timestamp": at,
        "website": {"status": "active", "timestamp": at},
        "aggregated": {"status": "active", "timestamp": at}}
    assert answer["server_timestamp"] == clock.now


@pytest.mark.parametrize("target, message", [
    ("999999", "No such person in this organization."),
    ("nobody@example.com", "No such person in this organization."),
])
def test_user_presence_errors(realm, target, message):
    assert realm.owner.get(f"/users/{target}/presence").json["msg"] == message


def test_bots_have_no_presence(realm):
    bot = realm.add_user("Helper Bot", is_bot=True)
    ping(bot)
    assert Presence.get_or_none(realm.realm_id, bot.user_id) is None
    response = realm.owner.get(f"/users/{bot.user_id}/presence")
    assert response.json["msg"] == "Bots have no presence."
    assert realm.owner.get(f"/users/{realm.admin.user_id}/presence").json["msg"] == \
        f"{realm.admin.user_id} has no presence information yet"


def test_history_limit_and_expiry(realm, clock):
    ping(realm.member)
    clock.advance(3 * 86400)
    ping(realm.owner)
    assert realm.member.email in ping(realm.owner)["presences"]
    assert realm.member.email not in ping(realm.owner, history_limit_days=1)["presences"]
    # two weeks on, the member's item has expired (TTL deletion is lazy: reads skip it)
    clock.advance(12 * 86400)
    assert realm.member.email not in ping(realm.owner, history_limit_days=365)["presences"]
    assert realm.owner.post("/users/me/presence", {"status": "active",
                                                  "history_limit_days": -1}).status == 400


def test_register_carries_the_presence_state(realm, clock, register_queue):
    ping(realm.member)
    state = register_queue(realm.owner, fetch_event_types=["presence", "realm"])
    assert realm.member.email in state["presences"]
    assert state["server_timestamp"] == pytest.approx(clock.now)
    assert isinstance(state["presence_last_update_id"], int)
    assert state["presence_last_update_id"] > 0
    assert (state["server_presence_ping_interval_seconds"],
            state["server_presence_offline_threshold_seconds"]) == (60, 140)
    slim = register_queue(realm.owner, fetch_event_types=["presence"], slim_presence=True)
    assert str(realm.member.user_id) in slim["presences"]
    clock.advance(2 * 86400)
    limited = register_queue(realm.owner, fetch_event_types=["presence"],
                             presence_history_limit_days=1)
    assert limited["presences"] == {} and limited["presence_last_update_id"] == -1
    refused = realm.owner.post("/register", {"presence_history_limit_days": -1})
    assert refused.status == 400


def test_deactivation_forgets_presence(realm):
    ping(realm.member)
    assert realm.owner.delete(f"/users/{realm.member.user_id}").ok
    assert stored(realm, realm.member) is None
    assert realm.member.email not in ping(realm.owner)["presences"]


def test_bad_status_is_refused(realm):
    response = realm.member.post("/users/me/presence", {"status": "away"})
    assert response.status == 400 and response.json["msg"] == "status has an unacceptable value"
    assert realm.member.post("/users/me/presence", {}).json["code"] == \
        "REQUEST_VARIABLE_MISSING"


def test_simplified_presence_events_for_clients_that_ask(realm, clock, register_queue,
                                                        fetch_events, drain_events, advertise):
    advertise(419)
    modern = register_queue(realm.owner, event_types=["presence"], client_capabilities={
        "simplified_presence_events": True})
    legacy_queue = register_queue(realm.owner, event_types=["presence"])["queue_id"]
    # WHEN a member comes online
    ping(realm.member)
    at = int(clock.now)
    drain_events()
    # THEN a client with the capability hears it in the modern format (level 419), and
    # one without it in the legacy format; never both
    assert presence_events(realm.owner, modern["queue_id"], fetch_events) == [
        {"type": "presence", "presences": {str(realm.member.user_id): {
            "active_timestamp": at, "idle_timestamp": at}}}]
    [legacy] = presence_events(realm.owner, legacy_queue, fetch_events)
    assert (legacy["user_id"], "presences" in legacy) == (realm.member.user_id, False)
    # AND its state is in the modern format too
    state = register_queue(realm.owner, fetch_event_types=["presence"], client_capabilities={
        "simplified_presence_events": True})
    assert state["presences"][str(realm.member.user_id)]["active_timestamp"] == at
    # AND below level 419 the capability means nothing
    advertise(418)
    older = register_queue(realm.owner, event_types=["presence"], client_capabilities={
        "simplified_presence_events": True})
    clock.advance(3600)
    ping(realm.member)
    drain_events()
    [event] = presence_events(realm.owner, older["queue_id"], fetch_events)
    assert "presences" not in event and event["user_id"] == realm.member.user_id
