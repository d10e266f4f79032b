"""Rate limits through the HTTP path: per user (headers, 429, other users untouched, bots,
per-organization limits), failed authentication per username and per source address,
invitations, emails, the push channel; the counter under concurrent hits."""
from __future__ import annotations

import base64
import itertools
import json
import os

import pytest

from chalicelib.admin import main as admin
from chalicelib.models import rate_limits
from chalicelib.rules.rate_limits import API_BY_USER, Rule, bucket_key
from tests.functional.aws_hooks import error_response, hooked
from tests.functional.conftest import sent_emails
from tests.functional.race import race
from tests.functional.test_account import fetch_key, set_password
from tests.functional.test_events_websocket import connect, message, sockets  # noqa: F401

# A fixed clock a minute before a window's end (a multiple of every window used here).
START = 86400.0 * 20835 - 60
_addresses = (f"198.51.100.{n}" for n in itertools.count(1))


@pytest.fixture
def limits(monkeypatch):
    """Sets rules over the test defaults (tests/conftest.py) on a controlled clock, from
    a source address of the test's own; returns a function that moves the clock."""
    now = [START]
    monkeypatch.setattr(rate_limits, "clock", lambda: now[0])
    monkeypatch.setattr("chalice.local.LambdaEventConverter.LOCAL_SOURCE_IP",
                        next(_addresses))
    monkeypatch.setenv("REALM_LIMITS_CACHE_SECONDS", "0")

    def set_limits(spec: str) -> None:
        monkeypatch.setenv("RATE_LIMITS", os.environ["RATE_LIMITS"] + "," + spec)

    def advance(seconds: float) -> None:
        now[0] += seconds

    set_limits.advance = advance  # type: ignore[attr-defined]
    return set_limits


def basic(email: str, key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()}


def assert_limited(response, limit: int, retry_after: int) -> None:
    assert response.status == 429, response.json
    assert response.json == {"result": "error", "code": "RATE_LIMIT_HIT",
                             "msg": response.json["msg"], "retry-after": retry_after}
    assert response.headers["Retry-After"] == str(retry_after)
    assert response.headers["X-RateLimit-Limit"] == str(limit)
    assert response.headers["X-RateLimit-Remaining"] == "0"


def test_a_burst_over_the_limit_is_refused_while_another_user_is_not(realm, limits, capsys):
    # GIVEN 5 requests a minute per user
    limits("api_by_user=5/60")
    reset = str(int(START) + 60)
    # WHEN one user sends a burst of 7
    answers = [realm.member.get("/users/me") for _ in range(7)]
    # THEN the first 5 pass, announcing a decreasing allowance, and the rest are refused
    assert [a.status for a in answers] == [200] * 5 + [429] * 2
    assert [a.headers["X-RateLimit-Remaining"] for a in answers[:5]] == ["4", "3", "2", "1",
                                                                           "0"]
    assert {a.headers["X-RateLimit-Limit"] for a in answers} == {"5"}
    assert {a.headers["X-RateLimit-Reset"] for a in answers} == {reset}
    assert_limited(answers[5], 5, 60)
    assert answers[5].json["msg"] == "Too many requests; slow down and retry later"
    # AND another user of the same organization is untouched
    other = realm.owner.get("/users/me")
    assert other.ok and other.headers["X-RateLimit-Remaining"] == "4"
    # AND each refusal is a metric
    assert capsys.readouterr().out.count('"RateLimitHit"') >= 2
    # WHEN the window ends, THEN the user may go on
    limits.advance(45)
    assert_limited(realm.member.get("/users/me"), 5, 15)
    limits.advance(15)
    again = realm.member.get("/users/me")
    assert again.ok and again.headers["X-RateLimit-Remaining"] == "4"


def test_errors_announce_the_limit_and_bots_are_limited_too(realm, limits):
    limits("api_by_user=2/60")
    bot = realm.add_user("Busy Bot", is_bot=True)
    # An error answer announces the allowance too
    bad = realm.member.get("/messages/999999999")
    assert bad.status == 400 and bad.headers["X-RateLimit-Remaining"] == "1"
    assert [bot.get("/users/me").status for _ in range(3)] == [200, 200, 429]
    # Unauthenticated answers carry no allowance
    anonymous = realm.client.http.get("/api/v1/server_settings")
    assert "X-RateLimit-Limit" not in anonymous.headers


def test_an_organization_can_have_its_own_limits(realm, chalice_client, limits, capsys):
    from tests.functional.conftest import make_realm

    limits("api_by_user=3/60")
    other = make_realm(chalice_client)
    # WHEN one organization is given a stricter limit with the admin CLI
    assert admin(["set-rate-limits", "--realm", realm.subdomain,
                  "--limits", "api_by_user=1/60"]) == 0
    assert json.loads(capsys.readouterr().out)["rate_limits"] == "api_by_user=1/60"
    # THEN its users have it, and the other organization keeps the deployment's
    assert [realm.member.get("/users/me").status for _ in range(2)] == [200, 429]
    assert [other.member.get("/users/me").status for _ in range(3)] == [200] * 3
    # AND a wrong rule is refused, and an empty one goes back to the deployment's
    assert admin(["set-rate-limits", "--realm", realm.subdomain, "--limits", "nope=1"]) == 2
    assert admin(["set-rate-limits", "--realm", realm.subdomain, "--limits", ""]) == 0
    assert realm.admin.get("/users/me").headers["X-RateLimit-Limit"] == "3"


def test_password_guessing_is_throttled_per_username(realm, limits, anonymous):
    limits("auth_failures_by_username=3/1800")
    set_password(realm.member, "the right password")
    set_password(realm.admin, "admin's password")
    # WHEN three wrong passwords are tried for one username
    assert [fetch_key(anonymous, realm, realm.member.email, f"guess {n}").status
            for n in range(3)] == [401] * 3
    # THEN even the right one is refused for the rest of the window (guessing learns
    # nothing), with the wait in the answer
    refused = fetch_key(anonymous, realm, realm.member.email, "the right password")
    assert_limited(refused, 3, 60)
    # AND another username from the same address logs in
    assert fetch_key(anonymous, realm, realm.admin.email, "admin's password").ok
    # AND after the window, the right password works again
    limits.advance(60)
    assert fetch_key(anonymous, realm, realm.member.email, "the right password").ok


def test_failed_logins_are_throttled_per_source_address(realm, limits, anonymous, monkeypatch):
    limits("auth_failures_by_ip=4/1800")
    names = [realm.add_user(f"Target {n}") for n in range(5)]
    set_password(names[4], "a good password")
    # WHEN one address tries wrong passwords on four usernames
    assert [fetch_key(anonymous, realm, a.email, "wrong").status for a in names[:4]] == \
        [401] * 4
    # THEN it may not log in as anyone else, nor with a wrong API key
    assert fetch_key(anonymous, realm, names[4].email, "a good password").status == 429
    assert anonymous("GET", "/users/me", None, basic(names[4].email, "z" * 32)).status == 429
    # AND another address may
    monkeypatch.setattr("chalice.local.LambdaEventConverter.LOCAL_SOURCE_IP", next(_addresses))
    assert fetch_key(anonymous, realm, names[4].email, "a good password").ok


def test_an_administrator_invites_a_team_one_person_at_a_time(realm, limits, monkeypatch,
                                                               capsys):
    # GIVEN the limits a deployment has by default (no test overrides)
    monkeypatch.setenv("RATE_LIMITS", "")
    monkeypatch.delenv("INVITES_DAILY_LIMIT", raising=False)
    people = [f"person{n}@{realm.subdomain}.example.com" for n in range(101)]
    # WHEN an administrator invites 100 people one by one, a request every 30 seconds
    for person in people[:100]:
        response = realm.admin.post("/invites", {"invitee_emails": person, "stream_ids": []})
        assert response.ok, (person, response.json)
        limits.advance(30)
    # THEN each was invited
    assert len(realm.admin.get("/invites").json["invites"]) == 100
    assert all(len(sent_emails(person)) == 1 for person in people[:100])
    # AND the 101st person of the day is over the organization's daily limit, counted in
    # invitees: refused as the reference refuses it, nothing sent
    over = realm.owner.post("/invites", {"invitee_emails": people[100], "stream_ids": []})
    assert (over.status, over.json["code"], over.json["daily_limit_reached"],
            over.json["sent_invitations"]) == (400, "INVITATION_FAILED", True, False)
    assert sent_emails(people[100]) == []
    # AND an operator may give one organization a larger daily limit
    assert admin(["set-max-invites", "--realm", realm.subdomain, "--max", "150"]) == 0
    assert json.loads(capsys.readouterr().out)["max_invites"] == 150
    assert realm.owner.post("/invites", {"invitee_emails": people[100],
                                         "stream_ids": []}).ok
    assert admin(["set-max-invites", "--realm", realm.subdomain, "--max", "-1"]) == 2


def test_an_old_invitation_rule_in_a_limits_value_is_ignored(realm, limits):
    # A deployment or organization still naming the retired per-user invitation rule
    limits("invites_by_user=1/3600")
    assert [realm.owner.post("/invites/multiuse", {}).status for _ in range(3)] == [200] * 3


def test_emails_to_one_address_are_limited(realm, limits):
    limits("emails_by_recipient=2/86400")
    target = f"new.address@{realm.subdomain}.example.com"
    assert realm.member.patch("/settings", {"email": target}).ok
    assert realm.admin.patch("/settings", {"email": target}).ok
    refused = realm.owner.patch("/settings", {"email": target})
    assert refused.status == 429 and refused.json["code"] == "RATE_LIMIT_HIT"
    assert len(sent_emails(target)) == 2


def test_the_push_channel_is_limited_by_connection_and_message(realm, limits, register_queue,
                                                               sockets):  # noqa: F811
    limits("api_by_user=3/60")
    queue_id = register_queue(realm.member)["queue_id"]       # 1
    connection, answer = connect(realm.member, queue_id)      # 2
    assert answer == {"statusCode": 200}
    message(connection, {"op": "get_events"})                 # 3
    assert sockets.sent[connection][-1]["type"] == "events"
    message(connection, {"op": "get_events"})                 # 4: over
    assert sockets.sent[connection][-1]["code"] == "RATE_LIMIT_HIT"
    _, refused = connect(realm.member, queue_id)
    assert refused["statusCode"] == 429
    assert json.loads(refused["body"])["code"] == "RATE_LIMIT_HIT"


def test_a_long_poll_counts_once_however_long_it_waits(realm, limits, register_queue,
                                                       monkeypatch):
    limits("api_by_user=3/60")
    monkeypatch.setenv("LONGPOLL_WAIT_SECONDS", "2")
    monkeypatch.setenv("LONGPOLL_CHECK_SECONDS", "1")
    queue_id = register_queue(realm.member)["queue_id"]
    waited = realm.member.get("/events", {"queue_id": queue_id, "last_event_id": -1})
    assert waited.ok and waited.headers["X-RateLimit-Remaining"] == "1"


def test_the_limiter_failing_lets_requests_through(realm, limits):
    limits("api_by_user=1/60")

    def throttle_counters(service, operation, params):
        if operation == "UpdateItem" and json.loads(params["body"])[
                "TableName"].endswith("rate_limits"):
            return error_response(service, "ThrottlingException", "injected", 400)
        return None

    with hooked(throttle_counters):
        answers = [realm.member.get("/users/me") for _ in range(3)]
    assert all(a.ok for a in answers)
    assert "X-RateLimit-Limit" not in answers[0].headers


def test_concurrent_hits_never_pass_the_limit(aws, monkeypatch):
    # GIVEN a limit of 10 and 24 hits racing from threads (as from many Lambda instances)
    monkeypatch.setenv("RATE_LIMITS", "api_by_user=10/3600")
    monkeypatch.setattr(rate_limits, "clock", lambda: START)
    subject = f"race:{next(_addresses)}"
    verdicts = race(24, lambda: rate_limits.hit(API_BY_USER, subject))
    # THEN exactly 10 pass, each seeing a distinct count, and the counter stops at 10
    allowed = sorted(v.count for v in verdicts if v is not None and v.allowed)
    assert allowed == list(range(1, 11))
    item = rate_limits.RateCounter.get(bucket_key(API_BY_USER, subject, Rule(10, 3600), START))
    assert item.hits == 10


def test_an_invitation_email_over_its_recipients_limit_is_reported_not_sent(realm, limits):
    from tests.functional.test_invites import invite

    limits("emails_by_recipient=1/86400")
    first, second = (f"{n}.invitee@{realm.subdomain}.example.com" for n in ("one", "two"))
    assert invite(realm.admin, first).ok
    # WHEN the same address is invited again (by someone else) along with a new one
    response = invite(realm.owner, f"{first}, {second}")
    # THEN the new one is sent, and the over-limit one is reported as not sent
    assert response.status == 400 and response.json["code"] == "INVITATION_FAILED"
    assert response.json["sent_invitations"] is True
    assert [entry[0] for entry in response.json["errors"]] == [first]
    assert len(sent_emails(first)) == 1 and len(sent_emails(second)) == 1
