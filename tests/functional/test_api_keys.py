"""API key rotation and revocation: POST /users/me/api_key/regenerate and the admin CLI's
rotate-key and revoke-key; old keys stop working at once, on every path."""
from __future__ import annotations

import base64
import json
import threading
import time
from typing import Any

from chalicelib.actions.users.api_keys import do_rotate_api_key
from chalicelib.admin import main as admin
from chalicelib.models.events import EventQueue, WsConnection
from tests.functional.test_account import fetch_key, set_password
from tests.functional.test_events_websocket import connect, message, sockets  # noqa: F401
from tests.iam_recorder import charged_to


def basic(email: str, key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()}


def refused(anonymous, email: str, key: str) -> bool:
    response = anonymous("GET", "/users/me", None, basic(email, key))
    return response.status == 401 and response.json["code"] == "UNAUTHORIZED"


def test_regenerating_ends_every_old_key_at_once(realm, anonymous):
    # GIVEN a user with the key they were created with and one from a password login
    set_password(realm.member, "a fine password")
    login_key = fetch_key(anonymous, realm, realm.member.email, "a fine password").json[
        "api_key"]
    old_key = realm.member.api_key
    # WHEN the user regenerates their key
    response = realm.member.post("/users/me/api_key/regenerate")
    assert response.ok, response.json
    new_key = response.json["api_key"]
    assert set(response.json) == {"result", "msg", "api_key"}
    assert len(new_key) == 32 and new_key not in (old_key, login_key)
    # THEN the very next request with either old key is refused, and the new key works
    assert refused(anonymous, realm.member.email, old_key)
    assert refused(anonymous, realm.member.email, login_key)
    me = anonymous("GET", "/users/me", None, basic(realm.member.email, new_key))
    assert me.ok and me.json["user_id"] == realm.member.user_id
    # AND other users' keys are untouched
    assert realm.owner.get("/users/me").ok


def test_admin_cli_rotates_and_revokes_keys(realm, anonymous, capsys):
    old_key = realm.member.api_key
    # WHEN an operator rotates the user's key
    assert admin(["rotate-key", "--realm", realm.subdomain, "--email", realm.member.email]) == 0
    rotated = json.loads(capsys.readouterr().out)
    assert rotated["user_id"] == realm.member.user_id
    # THEN the old key is refused and the printed one works
    assert refused(anonymous, realm.member.email, old_key)
    assert anonymous("GET", "/users/me", None, basic(realm.member.email, rotated["api_key"])).ok
    # WHEN the operator revokes the user's keys
    assert admin(["revoke-key", "--realm", realm.subdomain, "--email", realm.member.email]) == 0
    assert json.loads(capsys.readouterr().out)["revoked"] is True
    # THEN no key works, until the user logs in with a password again
    assert refused(anonymous, realm.member.email, rotated["api_key"])
    set_password(realm.member, "a fine password")
    login = fetch_key(anonymous, realm, realm.member.email, "a fine password")
    assert login.ok
    assert anonymous("GET", "/users/me", None, basic(realm.member.email, login.json["api_key"])).ok
    # AND an unknown user is a clear error
    assert admin(["rotate-key", "--realm", realm.subdomain, "--email", "nobody@x.example"]) == 2
    assert "No user" in capsys.readouterr().err


def test_a_waiting_long_poll_with_the_old_key_ends(realm, register_queue, monkeypatch):
    # GIVEN a blocking GET /events that would check its queue only every 10 s
    monkeypatch.setenv("LONGPOLL_WAIT_SECONDS", "20")
    monkeypatch.setenv("LONGPOLL_CHECK_SECONDS", "10")
    queue_id = register_queue(realm.member)["queue_id"]
    result: dict[str, Any] = {}

    def wait() -> None:
        result["response"] = realm.member.get("/events", {"queue_id": queue_id,
                                                          "last_event_id": -1})
        result["at"] = time.monotonic()

    waiter = threading.Thread(target=wait)
    waiter.start()
    deadline = time.monotonic() + 10
    while EventQueue.get(queue_id).wake_url is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    # WHEN the key is rotated
    do_rotate_api_key(realm.member.realm_id, realm.member.user_id)
    rotated = time.monotonic()
    waiter.join(timeout=25)
    # THEN the waiting request answers with the auth error, well before its next check
    response = result["response"]
    assert response.status == 401 and response.json["code"] == "UNAUTHORIZED"
    assert result["at"] - rotated < 5


def test_a_poll_woken_by_events_soon_after_its_check_does_not_read_its_key_again(
        realm, register_queue, drain_events, monkeypatch):
    # GIVEN a waiting poll that checks its key every 10 s at most (called as the view
    # calls it: the drain below must not run inside a request)
    from chalicelib.core.principal import Principal
    from chalicelib.realtime.reader import get_events

    monkeypatch.setenv("LONGPOLL_WAIT_SECONDS", "20")
    monkeypatch.setenv("LONGPOLL_CHECK_SECONDS", "10")
    member = realm.member
    caller = Principal(member.realm_id, member.user_id, member.email, member.role, False)
    checks: list[int] = []
    queue_id = register_queue(member, event_types=["message"])["queue_id"]
    result: dict[str, Any] = {}

    def wait() -> None:
        result["body"] = get_events(caller, queue_id, -1, False,
                                    reauthenticate=lambda: checks.append(1))

    waiter = threading.Thread(target=wait)
    waiter.start()
    deadline = time.monotonic() + 10
    while EventQueue.get(queue_id).wake_url is None and time.monotonic() < deadline:
        time.sleep(0.05)
    # WHEN a message wakes it a moment later
    assert member.post("/messages", {"type": "direct", "to": [member.user_id],
                                     "content": "no need to check"}).ok
    drain_events()
    waiter.join(timeout=15)
    # THEN it answers with the message without checking its key again (a wake-up for
    # events costs one read, not two); a changed key wakes it with its own reason
    events = result["body"]["events"]
    assert [e["message"]["content"] for e in events if e["type"] == "message"] == [
        "no need to check"]
    assert checks == []


def test_a_push_connection_with_the_old_key_is_closed(realm, register_queue,
                                                     sockets):  # noqa: F811
    queue_id = register_queue(realm.member)["queue_id"]
    connection, answer = connect(realm.member, queue_id)
    assert answer == {"statusCode": 200}
    # WHEN the key is rotated
    new_key = do_rotate_api_key(realm.member.realm_id, realm.member.user_id)
    # THEN the connection is closed and forgotten, so a message on it is refused too
    assert connection in sockets.closed
    assert WsConnection.get_or_none(connection) is None
    sockets.closed.clear()
    message(connection, {"op": "get_events"})
    assert sockets.closed == [connection] and connection not in sockets.sent
    # AND the old key cannot connect again, the new one can (the queue stays)
    _, old = connect(realm.member, queue_id)
    assert old["statusCode"] == 401
    realm.member.api_key = new_key
    _, new = connect(realm.member, queue_id)
    assert new == {"statusCode": 200}


def test_a_connection_made_while_the_key_is_rotated_is_refused(realm, register_queue,
                                                               sockets, monkeypatch):  # noqa: F811
    from chalicelib.realtime import websocket

    queue_id = register_queue(realm.member)["queue_id"]
    real_attach = websocket.attach

    def attach_then_rotate(queue, connection_id, last_event_id):
        # the rotation runs after this connect authenticated, and looks for connections
        # before this one is attached (an API request of its own: its calls are that one's)
        charged_to("APIHandler", lambda: do_rotate_api_key(realm.member.realm_id,
                                                            realm.member.user_id))
        return real_attach(queue, connection_id, last_event_id)

    monkeypatch.setattr(websocket, "attach", attach_then_rotate)
    connection, answer = connect(realm.member, queue_id)
    assert answer["statusCode"] == 401
    assert json.loads(answer["body"])["code"] == "UNAUTHORIZED"
    assert WsConnection.get_or_none(connection) is None


def test_a_bots_owner_or_an_administrator_regenerates_its_key(realm, anonymous):
    created = realm.member.post("/bots", {"full_name": "Helper", "short_name": "helper"})
    assert created.ok, created.json
    bot_id, old_key = created.json["user_id"], created.json["api_key"]
    bot_email = realm.member.get(f"/users/{bot_id}").json["user"]["email"]
    # Neither another member nor a missing bot
    for caller, target in ((realm.moderator, bot_id), (realm.member, 10**9),
                           (realm.member, realm.owner.user_id)):
        response = caller.post(f"/bots/{target}/api_key/regenerate")
        assert response.status == 400 and response.json["msg"] == "No bot with that ID exists"
    # The owner, then an administrator: each time only the newest key works
    first = realm.member.post(f"/bots/{bot_id}/api_key/regenerate").json["api_key"]
    assert refused(anonymous, bot_email, old_key)
    second = realm.admin.post(f"/bots/{bot_id}/api_key/regenerate").json["api_key"]
    assert refused(anonymous, bot_email, first)
    assert anonymous("GET", "/users/me", None, basic(bot_email, second)).json[
        "user_id"] == bot_id


def test_a_waiting_long_poll_notices_a_revoked_key_at_its_next_check(realm, register_queue,
                                                                     monkeypatch):
    # GIVEN a waiting GET /events that checks every 2 s and is not woken by the revocation
    # (as when its wake queue appeared just after the revocation looked for it)
    from chalicelib.actions.users import api_keys

    monkeypatch.setenv("LONGPOLL_WAIT_SECONDS", "20")
    monkeypatch.setenv("LONGPOLL_CHECK_SECONDS", "2")
    monkeypatch.setattr(api_keys, "end_sessions", lambda realm_id, user_id: 0)
    queue_id = register_queue(realm.member)["queue_id"]
    result: dict[str, Any] = {}

    def wait() -> None:
        result["response"] = realm.member.get("/events", {"queue_id": queue_id,
                                                          "last_event_id": -1})
        result["at"] = time.monotonic()

    waiter = threading.Thread(target=wait)
    waiter.start()
    deadline = time.monotonic() + 10
    while EventQueue.get(queue_id).wake_url is None and time.monotonic() < deadline:
        time.sleep(0.05)
    # WHEN the key is revoked
    do_rotate_api_key(realm.member.realm_id, realm.member.user_id, issue=False)
    revoked = time.monotonic()
    waiter.join(timeout=25)
    # THEN the request ends with the auth error at its next check, not after its wait
    assert result["response"].status == 401
    assert result["at"] - revoked < 2 + 3
