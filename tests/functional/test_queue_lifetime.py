"""POST /register idle_queue_timeout (level 481): how long a queue lives unpolled, asked
for in seconds or as "mobile", and told back as idle_queue_timeout_secs."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from chalicelib.models.events import EventQueue


def _life_left(queue_id: str) -> timedelta:
    return EventQueue.get(queue_id).expires_at - datetime.now(UTC)


def test_a_mobile_queue_lives_twelve_hours_unpolled_and_says_so(realm, advertise):
    advertise(481)
    # WHEN the mobile app registers as it does with the reference (a JSON-encoded value)
    state = realm.member.post("/register", {"event_types": ["message"],
                                            "idle_queue_timeout": '"mobile"'}).json
    # THEN the answer says how long the queue lives, and it does
    assert state["idle_queue_timeout_secs"] == 12 * 3600
    assert timedelta(hours=11, minutes=59) < _life_left(state["queue_id"]) <= timedelta(
        hours=12)
    # AND a poll renews it for as long again (plus the renewal's minute)
    assert realm.member.get("/events", {"queue_id": state["queue_id"], "last_event_id": -1,
                                        "dont_block": True}).ok
    assert _life_left(state["queue_id"]) > timedelta(hours=12)


def test_seconds_are_taken_as_given_up_to_the_longest_life_here(realm, advertise):
    advertise(481)
    short = realm.member.post("/register", {"event_types": ["message"],
                                            "idle_queue_timeout": 90}).json
    assert short["idle_queue_timeout_secs"] == 90
    assert _life_left(short["queue_id"]) <= timedelta(seconds=90)
    # A week is valid; a queue lives at most twelve hours here, and the answer says so
    week = realm.member.post("/register", {"event_types": ["message"],
                                           "idle_queue_timeout": 7 * 24 * 3600}).json
    assert week["idle_queue_timeout_secs"] == 12 * 3600
    # Without the parameter: the ten minutes clients have always had
    default = realm.member.post("/register", {"event_types": ["message"]}).json
    assert default["idle_queue_timeout_secs"] == 600
    assert _life_left(default["queue_id"]) <= timedelta(minutes=10)


def test_other_values_are_refused_before_any_queue_exists(realm, advertise):
    advertise(481)
    before = len(list(EventQueue.by_user.query(realm.realm_id,
                                               EventQueue.user_id == realm.member.user_id)))
    # (a bare `mobile` is not JSON, as the reference refuses it too)
    for value in (0, -5, 7 * 24 * 3600 + 1, '"desktop"', "mobile", True):
        answer = realm.member.post("/register", {"idle_queue_timeout": value})
        assert answer.status == 400 and answer.json["code"] == "BAD_REQUEST", value
    assert len(list(EventQueue.by_user.query(
        realm.realm_id, EventQueue.user_id == realm.member.user_id))) == before


def test_below_level_481_the_answer_has_no_idle_queue_timeout_secs(
        realm, register_queue, advertise):
    advertise(480)
    state = register_queue(realm.member, event_types=["message"])
    assert "idle_queue_timeout_secs" not in state
