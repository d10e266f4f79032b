"""The push channel's handlers ($connect, $default, $disconnect, keepalive) on moto.

What the handlers send is recorded by replacing the management API call (moto's
records but delivers nothing); the local stack's e2e test uses a real socket.
"""
from __future__ import annotations

import base64
import itertools
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app import app
from chalicelib.delivery import push
from chalicelib.delivery.wake import ensure_wake_queue, list_wake_queues
from chalicelib.models.events import EventQueue, WsConnection
from chalicelib.realtime.keepalive import run_keepalive
from infra.local.pollers import LambdaContext

_connection_ids = (f"conn{n}=" for n in itertools.count())


class Sockets:
    """The messages each connection was sent, and which connections are gone."""

    def __init__(self) -> None:
        self.sent: dict[str, list[dict[str, Any]]] = {}
        self.gone: set[str] = set()
        self.closed: list[str] = []

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        if connection_id in self.gone:
            return False
        self.sent.setdefault(connection_id, []).append(message)
        return True

    def close(self, connection_id: str) -> None:
        self.closed.append(connection_id)

    def events(self, connection_id: str) -> list[dict[str, Any]]:
        return [e for m in self.sent.get(connection_id, []) if m["type"] == "events"
                for e in m["events"]]


@pytest.fixture
def sockets(monkeypatch: pytest.MonkeyPatch) -> Sockets:
    recorder = Sockets()
    monkeypatch.setenv("WEBSOCKET_MANAGEMENT_URL", "http://127.0.0.1:9/")
    monkeypatch.setattr(push, "send", recorder.send)
    monkeypatch.setattr(push, "close", recorder.close)
    return recorder


def ws_event(route: str, connection_id: str, **extra: Any) -> dict[str, Any]:
    return {"requestContext": {"routeKey": route, "connectionId": connection_id,
                               "domainName": "127.0.0.1:1", "stage": "local",
                               "apiId": "local"}, **extra}


def connect(account, queue_id: str, last_event_id: Any = -1, headers: dict | None = None
            ) -> tuple[str, dict[str, Any]]:
    connection_id = next(_connection_ids)
    token = base64.b64encode(f"{account.email}:{account.api_key}".encode()).decode()
    answer = app.handler_map["ws_connect"](ws_event(
        "$connect", connection_id,
        headers=headers if headers is not None else {"Authorization": f"Basic {token}"},
        queryStringParameters={"queue_id": queue_id, "last_event_id": str(last_event_id)}),
        LambdaContext("ws_connect"))
    return connection_id, answer


def message(connection_id: str, body: Any) -> None:
    app.handler_map["ws_message"](ws_event("$default", connection_id, body=body if isinstance(
        body, str) else json.dumps(body)), LambdaContext("ws_message"))


def disconnect(connection_id: str) -> None:
    app.handler_map["ws_disconnect"](ws_event("$disconnect", connection_id),
                                     LambdaContext("ws_disconnect"))


def dm(sender, to, content: str) -> None:
    assert sender.post("/messages", {"type": "direct", "to": [to.user_id],
                                     "content": content}).ok


def contents(events: list[dict[str, Any]]) -> list[str]:
    return [e["message"]["content"] for e in events if e["type"] == "message"]


def test_connect_fetch_push_and_resume(realm, register_queue, drain_events, sockets):
    queue_id = register_queue(realm.member, event_types=["message"])["queue_id"]
    dm(realm.owner, realm.member, "before connecting")
    drain_events()
    # WHEN the client connects and asks for what it has not seen
    first, answer = connect(realm.member, queue_id)
    assert answer == {"statusCode": 200}
    message(first, {"op": "get_events", "last_event_id": -1})
    # THEN it gets the queue's backlog (and the connect marker's heartbeat)
    assert contents(sockets.events(first)) == ["before connecting"]
    # WHEN messages are fanned out
    dm(realm.owner, realm.member, "pushed 1")
    dm(realm.owner, realm.member, "pushed 2")
    drain_events()
    # THEN they are pushed, in order, ids increasing
    received = sockets.events(first)
    assert contents(received) == ["before connecting", "pushed 1", "pushed 2"]
    assert [e["id"] for e in received] == sorted({e["id"] for e in received})
    last = received[-1]["id"]
    # WHEN the client goes away, more messages come, and it reconnects after `last`
    disconnect(first)
    dm(realm.owner, realm.member, "missed")
    drain_events()
    assert contents(sockets.events(first)) == ["before connecting", "pushed 1", "pushed 2"]
    second, _ = connect(realm.member, queue_id, last)
    message(second, {"op": "get_events"})   # defaults to the id given when connecting
    # THEN it gets exactly what it missed
    resumed = sockets.events(second)
    assert contents(resumed) == ["missed"] and all(e["id"] > last for e in resumed)


def test_connect_refuses_bad_credentials_queues_and_ids(realm, register_queue, sockets):
    queue_id = register_queue(realm.member)["queue_id"]
    _, missing = connect(realm.member, queue_id, headers={})
    assert missing["statusCode"] == 401
    _, foreign = connect(realm.owner, queue_id)
    assert foreign["statusCode"] == 400
    assert json.loads(foreign["body"])["code"] == "BAD_EVENT_QUEUE_ID"
    _, bad_id = connect(realm.member, queue_id, "1_000")
    assert bad_id["statusCode"] == 400 and "last_event_id" in json.loads(bad_id["body"])["msg"]
    assert list(WsConnection.scan(WsConnection.queue_id == queue_id)) == []


def _protocols(*offered: str) -> dict[str, str]:
    return {"Sec-WebSocket-Protocol": ", ".join(offered)}


def _carried(email: str, api_key: str) -> str:
    token = base64.urlsafe_b64encode(f"{email}:{api_key}".encode()).decode().rstrip("=")
    return f"teamchat.basic.{token}"


def test_a_browser_authenticates_with_a_subprotocol(realm, register_queue, drain_events,
                                                    sockets):
    # GIVEN a browser's queue; a browser cannot set an Authorization header on a socket
    member = realm.member
    queue_id = register_queue(member, event_types=["message"])["queue_id"]
    # WHEN it offers the credentials as a subprotocol beside teamchat.v1
    connection_id, answer = connect(member, queue_id, headers=_protocols(
        "teamchat.v1", _carried(member.email, member.api_key)))
    # THEN it is connected, with teamchat.v1 selected: the key is never echoed back
    assert answer == {"statusCode": 200, "headers": {"Sec-WebSocket-Protocol": "teamchat.v1"}}
    dm(realm.owner, member, "to the browser")
    drain_events()
    message(connection_id, {"op": "get_events", "last_event_id": -1})
    # (pushed and then fetched: the same event, by id, as a client applies it once)
    by_id = {e["id"]: e for e in sockets.events(connection_id)}
    assert contents(list(by_id.values())) == ["to the browser"]
    # AND a client with the header that offers teamchat.v1 gets it selected too
    _, with_header = connect(member, queue_id, headers={
        "Authorization": "Basic " + base64.b64encode(
            f"{member.email}:{member.api_key}".encode()).decode(), **_protocols("teamchat.v1")})
    assert with_header["headers"] == {"Sec-WebSocket-Protocol": "teamchat.v1"}


def test_subprotocol_credentials_are_checked_as_the_header_is(realm, register_queue, sockets):
    member = realm.member
    queue_id = register_queue(member)["queue_id"]
    wrong = connect(member, queue_id, headers=_protocols(
        "teamchat.v1", _carried(member.email, "x" * 32)))[1]
    assert wrong["statusCode"] == 401
    malformed = connect(member, queue_id, headers=_protocols("teamchat.v1",
                                                             "teamchat.basic.bm9jb2xvbg"))[1]
    assert malformed["statusCode"] == 401
    # Credentials without the protocol they belong to: refused, never half-accepted
    alone = connect(member, queue_id, headers=_protocols(
        _carried(member.email, member.api_key)))[1]
    assert alone["statusCode"] == 400
    foreign = connect(realm.owner, queue_id, headers=_protocols(
        "teamchat.v1", _carried(realm.owner.email, realm.owner.api_key)))[1]
    assert json.loads(foreign["body"])["code"] == "BAD_EVENT_QUEUE_ID"
    assert list(WsConnection.scan(WsConnection.queue_id == queue_id)) == []


def test_bad_messages_get_an_error_and_unknown_connections_are_closed(realm, register_queue,
                                                                      sockets):
    queue_id = register_queue(realm.member)["queue_id"]
    connection_id, _ = connect(realm.member, queue_id)
    for body in ("{not json", json.dumps([1]), json.dumps({"op": "subscribe"}),
                 json.dumps({"op": "get_events", "last_event_id": "x"}), "x" * 5000):
        message(connection_id, body)
    errors = [m for m in sockets.sent[connection_id] if m["type"] == "error"]
    assert len(errors) == 5 and all(e["code"] == "BAD_REQUEST" for e in errors)
    message("never-connected=", {"op": "get_events"})
    assert "never-connected=" in sockets.closed


def test_a_newer_connection_replaces_an_older_one(realm, register_queue, drain_events,
                                                  sockets):
    queue_id = register_queue(realm.member, event_types=["message"])["queue_id"]
    old, _ = connect(realm.member, queue_id)
    new, _ = connect(realm.member, queue_id)
    assert sockets.closed == [old]
    disconnect(old)   # the old one's disconnect must not stop pushes to the new one
    dm(realm.owner, realm.member, "to the new one")
    drain_events()
    assert contents(sockets.events(new)) == ["to the new one"]
    assert contents(sockets.events(old)) == []


def test_a_gone_connection_is_forgotten(realm, register_queue, drain_events, sockets):
    queue_id = register_queue(realm.member, event_types=["message"])["queue_id"]
    connection_id, _ = connect(realm.member, queue_id)
    sockets.gone.add(connection_id)   # dropped without a $disconnect
    dm(realm.owner, realm.member, "into the void")
    drain_events()
    # THEN the connection record is gone and later appends do not try it again
    assert WsConnection.get_or_none(connection_id) is None
    sockets.gone.discard(connection_id)
    dm(realm.owner, realm.member, "later")
    drain_events()
    assert sockets.events(connection_id) == []
    # AND the events are in the queue for the client's next connection
    assert contents(realm.member.get("/events", {"queue_id": queue_id,
                                                 "dont_block": True}).json["events"]) == [
        "into the void", "later"]


def test_keepalive_heartbeats_connections_and_closes_stale_ones(realm, register_queue,
                                                                sockets):
    live_queue = register_queue(realm.member)["queue_id"]
    dead_queue = register_queue(realm.admin)["queue_id"]
    live, _ = connect(realm.member, live_queue)
    dead, _ = connect(realm.admin, dead_queue)
    # the admin's queue expires (no poll for 10 minutes)
    EventQueue(dead_queue).update(actions=[EventQueue.expires_at.set(
        datetime.now(UTC) - timedelta(seconds=1))])
    before = datetime.now(UTC) + timedelta(minutes=1)   # idle for 9 minutes
    EventQueue(live_queue).update(actions=[EventQueue.expires_at.set(before)])
    run_keepalive()
    assert [e["type"] for e in sockets.events(live)] == ["heartbeat"]
    assert EventQueue.get(live_queue).expires_at > before   # the queue stays alive
    assert dead in sockets.closed and WsConnection.get_or_none(dead) is None
    assert WsConnection.get_or_none(live) is not None


def test_keepalive_deletes_wake_queues_of_gone_event_queues(realm, register_queue):
    kept = EventQueue.get(register_queue(realm.member)["queue_id"])
    gone = EventQueue.get(register_queue(realm.admin)["queue_id"])
    ensure_wake_queue(kept)
    ensure_wake_queue(gone)
    gone.delete()
    run_keepalive()
    remaining = list_wake_queues()
    assert kept.queue_id in remaining and gone.queue_id not in remaining
