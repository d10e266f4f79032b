"""Failed credentials through the HTTP path, as the reference counts them: a wrong API key
counts against its source address only (a stranger who knows an email cannot lock its
owner out of password login), and `old_password` of PATCH /settings is limited per user
exactly as password login is. Every answer says `nosniff`."""
from __future__ import annotations

import pytest

from chalicelib.models.users import User
from chalicelib.rules.passwords import check_password
from tests.functional import test_rate_limits
from tests.functional.test_account import fetch_key, set_password
from tests.functional.test_rate_limits import _addresses, basic

limits = test_rate_limits.limits   # the fixture: rules over the test defaults, a clock


def from_address(monkeypatch) -> str:
    """Later requests of the test come from a new source address."""
    address = next(_addresses)
    monkeypatch.setattr("chalice.local.LambdaEventConverter.LOCAL_SOURCE_IP", address)
    return address


def test_wrong_api_keys_cannot_lock_the_owner_out(realm, limits, anonymous, monkeypatch):
    # GIVEN three failed logins a username may have, and an owner with a password
    limits("auth_failures_by_username=3/1800")
    set_password(realm.owner, "the owner's password")
    # WHEN a stranger who knows the owner's email sends wrong API keys with it
    wrong = basic(realm.owner.email, "x" * 32)
    assert {anonymous("GET", "/users/me", None, wrong).status for _ in range(6)} == {401}
    # THEN the owner, from elsewhere, still logs in with the right password
    from_address(monkeypatch)
    answer = fetch_key(anonymous, realm, realm.owner.email, "the owner's password")
    assert answer.status == 200, answer.json


def test_wrong_api_keys_are_limited_per_source_address(realm, limits, anonymous,
                                                       monkeypatch):
    limits("auth_failures_by_ip=3/1800")
    answers = [anonymous("GET", "/users/me", None, basic(f"n{n}@example.com", "x" * 32))
               for n in range(4)]
    assert [a.status for a in answers] == [401, 401, 401, 429]
    assert answers[3].json["code"] == "RATE_LIMIT_HIT"
    # The right key still works from there; another address is not limited
    assert realm.member.get("/users/me").ok
    from_address(monkeypatch)
    assert anonymous("GET", "/users/me", None, basic(realm.owner.email, "y" * 32)).status == 401


def change_password(account, old: str, new: str = "a brand new password"):
    return account.patch("/settings", {"old_password": old, "new_password": new})


def test_guessing_old_password_is_limited_like_login(realm, limits, anonymous, monkeypatch):
    # GIVEN three failed password attempts a username may have
    limits("auth_failures_by_username=3/1800")
    set_password(realm.member, "the right password")
    # WHEN a logged-in member guesses its own old password three times
    for guess in ("guess 1", "guess 2", "guess 3"):
        answer = change_password(realm.member, guess)
        assert (answer.status, answer.json["msg"]) == (400, "That password is not correct.")
    # THEN even the right one is refused for the rest of the window, as the reference
    # refuses it (a 400 that says when to try again), and nothing changes
    refused = change_password(realm.member, "the right password")
    assert refused.status == 400 and refused.json["code"] == "BAD_REQUEST"
    assert "try again in 60 seconds" in refused.json["msg"], refused.json
    user = User.get(realm.realm_id, realm.member.user_id)
    assert check_password("the right password", user.password_hash)
    # AND the guesses count against password login too, from any address
    from_address(monkeypatch)
    assert fetch_key(anonymous, realm, realm.member.email, "the right password").status == 429
    # AND another member is not affected
    set_password(realm.admin, "admin's password")
    assert change_password(realm.admin, "admin's password").ok
    # AND once the window is over, the right password changes it
    limits.advance(60)
    assert change_password(realm.member, "the right password").ok


def test_failed_logins_count_against_changing_the_password(realm, limits, anonymous):
    limits("auth_failures_by_username=2/1800")
    set_password(realm.member, "the right password")
    assert [fetch_key(anonymous, realm, realm.member.email, "nope").status
            for _ in range(2)] == [401, 401]
    refused = change_password(realm.member, "the right password")
    assert refused.status == 400 and "try again" in refused.json["msg"]


# (An unknown path never reaches the app: API Gateway's answers carry the header by the
# template's gateway responses, the local stack's by its server, tests/unit/test_nosniff.py.)
@pytest.mark.parametrize("how", ["success", "bad request", "unauthorized", "not allowed"])
def test_every_api_answer_says_nosniff(realm, anonymous, how):
    answer = {
        "success": lambda: realm.member.get("/users/me"),
        "bad request": lambda: realm.member.post("/messages", {"type": "nonsense"}),
        "unauthorized": lambda: anonymous("GET", "/users/me"),
        "not allowed": lambda: realm.member.put("/server_settings"),
    }[how]()
    assert answer.headers.get("X-Content-Type-Options") == "nosniff", (answer.status,
                                                                       answer.headers)
