"""PATCH /settings account parts (name, email, password) and POST /fetch_api_key."""
from __future__ import annotations

import base64
import re

import pytest

from chalicelib.models.users import User
from chalicelib.rules.passwords import hash_password
from tests.functional.conftest import sent_emails


def set_password(account, password: str) -> None:
    """Test setup: the fixture's accounts have no password."""
    User(account.realm_id, account.user_id).update(
        actions=[User.password_hash.set(hash_password(password))])


def fetch_key(anonymous, realm, username: str, password: str):
    return anonymous("POST", "/fetch_api_key", {"username": username, "password": password},
                     {"Host": f"{realm.subdomain}.localhost"})


def open_link(realm, key: str):
    """The confirmation link lives outside /api/v1; opened like a browser would."""
    import json

    from tests.functional.conftest import ApiResponse

    response = realm.client.http.get(f"/accounts/confirm_new_email/{key}")
    return ApiResponse(response.status_code, json.loads(response.body), {})


def test_full_name_change_is_announced(realm, register_queue, fetch_events, drain_events):
    queue_id = register_queue(realm.admin, event_types=["realm_user"])["queue_id"]
    assert realm.member.patch("/settings", {"full_name": "  Maxine Member "}).ok
    assert realm.member.get("/users/me").json["full_name"] == "Maxine Member"
    drain_events()
    assert [e["person"] for e in fetch_events(realm.admin, queue_id)] == [
        {"user_id": realm.member.user_id, "full_name": "Maxine Member"}]
    assert realm.member.patch("/settings", {"full_name": " "}).json["msg"] == \
        "Name cannot be empty."


def test_password_change_and_fetch_api_key(realm, anonymous):
    set_password(realm.member, "first password")
    assert realm.member.patch("/settings", {"new_password": "second password"}).json[
        "msg"] == "Changing your password requires old_password."
    wrong = realm.member.patch("/settings", {"old_password": "nope",
                                             "new_password": "second password"})
    assert wrong.status == 400 and wrong.json["msg"] == "That password is not correct."
    short = realm.member.patch("/settings", {"old_password": "first password",
                                             "new_password": "short"})
    assert "8 to 100 characters" in short.json["msg"]
    assert realm.member.patch("/settings", {"old_password": "first password",
                                            "new_password": "second password"}).ok
    # the old password no longer logs in; the new one gives a working key
    assert fetch_key(anonymous, realm, realm.member.email, "first password").status == 401
    response = fetch_key(anonymous, realm, realm.member.email, "second password")
    assert response.ok, response.json
    assert response.json["email"] == realm.member.email
    new_key = response.json["api_key"]
    assert new_key != realm.member.api_key
    headers = {"Authorization": "Basic " + __import__("base64").b64encode(
        f"{realm.member.email}:{new_key}".encode()).decode()}
    assert anonymous("GET", "/users/me", None, headers).json["user_id"] == realm.member.user_id
    assert realm.member.get("/users/me").ok   # the first key still works too


def test_fetch_api_key_refusals(realm, anonymous):
    set_password(realm.member, "a good password")
    assert fetch_key(anonymous, realm, "nobody@example.com", "x").json["code"] == \
        "AUTHENTICATION_FAILED"
    assert fetch_key(anonymous, realm, "a" * 2000 + "@example.com", "x").json["code"] == \
        "AUTHENTICATION_FAILED"
    no_realm = anonymous("POST", "/fetch_api_key", {"username": realm.member.email,
                                                    "password": "a good password"})
    assert no_realm.status == 400 and "organization's address" in no_realm.json["msg"]
    assert realm.admin.delete(f"/users/{realm.member.user_id}").ok
    assert fetch_key(anonymous, realm, realm.member.email, "a good password").json[
        "code"] == "USER_DEACTIVATED"


def test_logins_past_the_key_cap_retire_the_oldest_key(realm, anonymous, monkeypatch):
    from chalicelib.actions.users import account

    monkeypatch.setattr(account, "MAX_EXTRA_API_KEYS", 3)
    set_password(realm.member, "a good password")
    keys = [fetch_key(anonymous, realm, realm.member.email, "a good password").json["api_key"]
            for _ in range(5)]

    def works(key: str) -> bool:
        token = base64.b64encode(f"{realm.member.email}:{key}".encode()).decode()
        return anonymous("GET", "/users/me", None, {"Authorization": f"Basic {token}"}).ok

    # THEN every login succeeded, the newest three keys work and the two oldest do not
    assert [works(key) for key in keys] == [False, False, True, True, True]
    assert realm.member.get("/users/me").ok   # the account's own key is never retired


def test_email_change_is_confirmed_by_the_emailed_link(realm, anonymous, register_queue,
                                                      fetch_events, drain_events):
    admin_queue = register_queue(realm.admin, event_types=["realm_user"])["queue_id"]
    moderator_queue = register_queue(realm.moderator, event_types=["realm_user"])["queue_id"]
    own_queue = register_queue(realm.member, event_types=["realm_user"])["queue_id"]
    new = f"maxed@{realm.subdomain}.example.com"
    assert realm.member.patch("/settings", {"email": new}).ok
    assert realm.member.get("/users/me").json["email"] == realm.member.email   # not yet
    [email] = sent_emails(new)
    link = re.search(r"https?://\S+/accounts/confirm_new_email/(\w+)", email["body"])
    assert link is not None
    confirmed = open_link(realm, link.group(1))
    assert confirmed.ok, confirmed.json
    assert confirmed.json["email"] == new
    # THEN the account uses the new address, and the old one is free again
    realm.member.email = new
    assert realm.member.get("/users/me").json["email"] == new
    drain_events()
    # the address is everyone's to see (the default): each viewer hears of the real
    # address, the API address (the same) and the picture made from it
    for account, queue_id in ((realm.admin, admin_queue), (realm.moderator, moderator_queue),
                              (realm.member, own_queue)):
        people = [e["person"] for e in fetch_events(account, queue_id)]
        assert {"user_id": realm.member.user_id, "new_email": new} in people
        assert {"user_id": realm.member.user_id, "delivery_email": new} in people
        assert sorted(key for person in people for key in person if key != "user_id") == [
            "avatar_source", "avatar_url", "avatar_url_medium", "avatar_version",
            "delivery_email", "new_email"]
    # the old address no longer authenticates; the new one does with the same key
    assert fetch_key(anonymous, realm, new, "x").json["code"] == "AUTHENTICATION_FAILED"
    # AND the link works only once
    again = open_link(realm, link.group(1))
    assert again.status == 400 and "invalid or has expired" in again.json["msg"]


@pytest.mark.parametrize("email, message", [
    ("not-an-email", "Invalid email address"),
    # longer than an address may be (and than DynamoDB takes in the claim's key)
    ("a" * 250 + "@{domain}", "Invalid email address: longer than 254 bytes."),
    ("admin@{domain}", "belongs to another account"),
    ("member@{domain}", "same as your current one"),
])
def test_email_change_refusals(realm, email, message):
    email = email.format(domain=f"{realm.subdomain}.example.com")
    response = realm.member.patch("/settings", {"email": email})
    assert response.status == 400 and message in response.json["msg"], response.json


def test_a_bad_account_change_leaves_settings_unchanged(realm):
    response = realm.member.patch("/settings", {"color_scheme": 2, "old_password": "x",
                                                "new_password": "long enough"})
    assert response.status == 400
    assert realm.member.patch("/settings", {"color_scheme": 7}).status == 400
    assert realm.member.patch("/settings", {"web_font_size_px": 200}).json["msg"] == \
        "Invalid web_font_size_px: use a value from 12 to 24"


def test_an_expired_link_changes_nothing(realm, monkeypatch):
    from datetime import timedelta

    from chalicelib.actions.users import account

    monkeypatch.setattr(account, "EMAIL_CHANGE_VALIDITY", timedelta(seconds=-1))
    new = f"late@{realm.subdomain}.example.com"
    assert realm.member.patch("/settings", {"email": new}).ok
    [email] = sent_emails(new)
    key = re.search(r"/accounts/confirm_new_email/(\w+)", email["body"]).group(1)
    expired = open_link(realm, key)
    assert expired.status == 400 and "invalid or has expired" in expired.json["msg"]
    assert realm.member.get("/users/me").json["email"] == realm.member.email
    assert open_link(realm, "not-a-key").status == 400
