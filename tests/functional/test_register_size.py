"""What a registration sends by default, and what an answer too large to return says
(issue 48): the reference's defaults send less per person, the avatar capability leaves
out long-idle people's avatars, and the error names what would make the answer fit,
never a parameter the request already used."""
from __future__ import annotations

import json

import pytest

from chalicelib.http import compression

PEOPLE = 30


def _crowd(realm, people: int = PEOPLE) -> None:
    for n in range(people):
        realm.add_user(f"Person {n}")


def _answer_bytes(response) -> int:
    return len(json.dumps(response.json, separators=(",", ":")))


def test_a_default_registration_sends_a_bounded_size_per_person(realm):
    """Plain POST /register, no parameters: each person costs at most what the
    reference's defaults send (Gravatar URLs left to the client: null), and the answer
    grows by people, not beyond."""
    _crowd(realm, 5)
    small = realm.member.post("/register")
    _crowd(realm, PEOPLE)
    large = realm.member.post("/register")
    assert small.ok and large.ok
    users = large.json["realm_users"]
    assert all(u["avatar_url"] is None for u in users)   # client_gravatar: true by default
    assert not any("subscribers" in s for s in large.json["subscriptions"])
    per_person = (_answer_bytes(large) - _answer_bytes(small)) / PEOPLE
    # A person is their realm_users entry (about 330 bytes here) and nothing else.
    assert per_person <= 400, per_person


def test_client_gravatar_false_still_sends_avatar_urls(realm):
    response = realm.member.post("/register", {"fetch_event_types": ["realm_user"],
                                               "client_gravatar": False})
    assert response.ok
    assert all(isinstance(u["avatar_url"], str) for u in response.json["realm_users"])


def test_the_avatar_capability_leaves_out_long_idle_peoples_avatars(realm):
    """With user_avatar_url_field_optional, people with no presence in two weeks have
    no avatar_url (the client asks GET /avatar/{id}); the recently present keep it."""
    present, idle = realm.add_user("Pat Present"), realm.add_user("Ida Idle")
    assert present.post("/users/me/presence", {"status": "active"}).ok
    response = realm.member.post("/register", {
        "fetch_event_types": ["realm_user"], "client_gravatar": False,
        "client_capabilities": {"user_avatar_url_field_optional": True}})
    assert response.ok
    users = {u["user_id"]: u for u in response.json["realm_users"]}
    assert isinstance(users[present.user_id]["avatar_url"], str)
    assert "avatar_url" not in users[idle.user_id]
    # Without the capability every person has one.
    plain = realm.member.post("/register", {"fetch_event_types": ["realm_user"]})
    assert all("avatar_url" in u for u in plain.json["realm_users"])


@pytest.fixture
def tiny_limit(monkeypatch):
    """Answers of more than 2 KB cannot be returned (as 6 MB at 10,000 people)."""
    monkeypatch.setattr(compression, "MAX_INVOCATION_ANSWER_BYTES", 2_000)


def test_a_registration_too_large_names_what_would_make_it_fit(realm, tiny_limit):
    _crowd(realm)
    refused = realm.member.post("/register", {"fetch_event_types": ["realm_user",
                                                                    "subscription"]})
    assert refused.status == 400 and refused.json["code"] == "BAD_REQUEST"
    message = refused.json["msg"]
    assert "Accept-Encoding: gzip" in message
    assert "realm_users" in message and "without realm_user" in message
    # It did not ask for subscribers: that is not the advice.
    assert "include_subscribers" not in message


def test_the_advice_names_the_parameters_the_request_used(realm, tiny_limit):
    _crowd(realm)
    everyone = [a.user_id for a in [realm.owner, realm.member, *realm.extra]]
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "crowd"}], "principals": everyone}).ok
    refused = realm.member.post("/register", {
        "fetch_event_types": ["realm_user", "subscription"], "include_subscribers": True,
        "client_gravatar": False})
    assert refused.status == 400
    message = refused.json["msg"]
    assert "include_subscribers=false" in message
    assert "client_gravatar=true" in message


def test_legacy_presence_is_advised_slim_presence(realm, monkeypatch):
    for account in [realm.add_user(f"Active {n}") for n in range(PEOPLE)]:
        assert account.post("/users/me/presence", {"status": "active"}).ok
    monkeypatch.setattr(compression, "MAX_INVOCATION_ANSWER_BYTES", 2_000)
    refused = realm.member.post("/register", {"fetch_event_types": ["presence"]})
    assert refused.status == 400
    assert "slim_presence=true" in refused.json["msg"]
    slim = realm.member.post("/register", {"fetch_event_types": ["presence"],
                                           "slim_presence": True})
    assert slim.status == 400 and "slim_presence" not in slim.json["msg"]
