"""The push channel on the local stack, used with a real WebSocket client library."""
from __future__ import annotations

import base64
import json
import time
from typing import Any

import pytest
import requests
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect


def _auth_header(account: dict[str, Any]) -> dict[str, str]:
    token = base64.b64encode(f"{account['email']}:{account['api_key']}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def _open(url: str, account: dict[str, Any], queue_id: str, last_event_id: int
          ) -> ClientConnection:
    return connect(f"{url}?queue_id={queue_id}&last_event_id={last_event_id}",
                   additional_headers=_auth_header(account), open_timeout=10)


class PushClient:
    """A client of the push channel as the README describes one: it applies events in id
    order, drops ids it has, and on a gap (a push that overtook another) asks the queue
    for everything after its last id."""

    def __init__(self, socket: ClientConnection, last_event_id: int) -> None:
        self.socket, self.last = socket, last_event_id
        self.applied: list[dict[str, Any]] = []
        self.fetch()

    def fetch(self) -> None:
        self.socket.send(json.dumps({"op": "get_events", "last_event_id": self.last}))

    def receive(self, timeout: float = 10) -> None:
        message = json.loads(self.socket.recv(timeout=timeout))
        assert message["type"] == "events", message
        for event in message["events"]:
            if event["id"] <= self.last:
                continue                      # already applied
            if event["id"] > self.last + 1:   # something is still on its way: ask the queue
                self.fetch()
                return
            self.applied.append(event)
            self.last = event["id"]

    def until(self, predicate: Any, seconds: float = 60) -> list[dict[str, Any]]:
        """Receives until `predicate(applied)`; fails after `seconds` (heartbeats alone
        would otherwise keep a failing wait alive forever)."""
        deadline = time.monotonic() + seconds
        while not predicate(self.applied):
            assert time.monotonic() < deadline, f"still waiting; applied: {self.applied}"
            self.receive()
        return self.applied


def _send_dm(stack, sender: dict[str, Any], to: dict[str, Any], content: str) -> int:
    response = requests.post(f"{stack.url}/api/v1/messages", timeout=10, data={
        "type": "direct", "to": json.dumps([to["user_id"]]), "content": content},
        auth=(sender["email"], sender["api_key"]))
    assert response.ok, response.text
    return response.json()["id"]


def _messages(events: list[dict[str, Any]], prefix: str) -> list[str]:
    """The contents of this test's messages (those starting with `prefix`): the stack is
    shared, and another test's late message (a bot's reply) may reach the same user."""
    return [e["message"]["content"] for e in events
            if e["type"] == "message" and e["message"]["content"].startswith(prefix)]


def test_push_channel_delivers_in_order_and_resumes_without_loss(local_stack):
    accounts = local_stack.accounts()
    member, owner = accounts["member"], accounts["owner"]
    api = f"{local_stack.url}/api/v1"
    # GIVEN a registered queue; both register and server_settings name the channel's URL
    # to a client that asks for this server's extension
    registered = requests.post(f"{api}/register", auth=(member["email"], member["api_key"]),
                               data={"event_types": '["message"]', "client_capabilities":
                                     '{"teamchat_websocket": true}'}, timeout=10).json()
    url = registered["event_queue_websocket_url"]
    assert url.startswith("ws://127.0.0.1:")
    assert requests.get(f"{api}/server_settings", params={"include_teamchat_extensions":
                                                          "true"}, timeout=10).json()[
        "event_queue_websocket_url"] == url
    queue_id = registered["queue_id"]
    # WHEN the client connects and fetches, then three messages are sent
    with _open(url, member, queue_id, -1) as socket:
        client = PushClient(socket, -1)
        client.until(lambda applied: applied)
        for n in range(3):
            _send_dm(local_stack, owner, member, f"push {n}")
        seen = client.until(lambda applied: len(_messages(applied, "push ")) == 3)
        # THEN they arrive in order, each id once, with nothing skipped
        assert _messages(seen, "push ") == ["push 0", "push 1", "push 2"]
        assert [e["id"] for e in seen] == list(range(len(seen)))
        # AND a heartbeat arrives with no client activity (the keepalive schedule)
        count = len(seen)
        client.until(lambda applied: len(applied) > count and applied[-1]["type"] == "heartbeat")
        last = client.last
    # WHEN messages are sent while the client is away, and it reconnects from `last`
    _send_dm(local_stack, owner, member, "while away 1")
    _send_dm(local_stack, owner, member, "while away 2")
    with _open(url, member, queue_id, last) as socket:
        missed = PushClient(socket, last).until(
            lambda applied: len(_messages(applied, "while away")) == 2)
    # THEN it gets exactly what it missed, once, after its last id
    assert _messages(missed, "while away") == ["while away 1", "while away 2"]
    assert [e["id"] for e in missed] == list(range(last + 1, last + 1 + len(missed)))


def test_push_channel_refuses_bad_credentials_and_foreign_queues(local_stack):
    accounts = local_stack.accounts()
    member, owner = accounts["member"], accounts["owner"]
    registered = requests.post(f"{local_stack.url}/api/v1/register", timeout=10,
                               auth=(member["email"], member["api_key"]),
                               data={"client_capabilities": '{"teamchat_websocket": true}'}
                               ).json()
    url, queue_id = registered["event_queue_websocket_url"], registered["queue_id"]
    with pytest.raises(InvalidStatus) as wrong_key:
        _open(url, {**member, "api_key": "not-the-key"}, queue_id, -1)
    assert wrong_key.value.response.status_code == 401
    with pytest.raises(InvalidStatus) as foreign:
        _open(url, owner, queue_id, -1)
    assert foreign.value.response.status_code == 400
    assert json.loads(foreign.value.response.body)["code"] == "BAD_EVENT_QUEUE_ID"


def test_a_browser_style_client_authenticates_with_a_subprotocol(local_stack):
    # GIVEN a queue, and a client that (like a browser) sends no Authorization header
    member, owner = local_stack.accounts()["member"], local_stack.accounts()["owner"]
    registered = requests.post(f"{local_stack.url}/api/v1/register", timeout=10,
                               auth=(member["email"], member["api_key"]),
                               data={"event_types": '["message"]', "client_capabilities":
                                     '{"teamchat_websocket": true}'}).json()
    credentials = base64.urlsafe_b64encode(
        f"{member['email']}:{member['api_key']}".encode()).decode().rstrip("=")
    url = (f"{registered['event_queue_websocket_url']}?queue_id={registered['queue_id']}"
           f"&last_event_id=-1")
    # WHEN it offers its credentials as a subprotocol
    with connect(url, subprotocols=["teamchat.v1", f"teamchat.basic.{credentials}"],
                 open_timeout=10) as socket:
        # THEN the handshake selects teamchat.v1 and events flow as with the header
        assert socket.subprotocol == "teamchat.v1"
        client = PushClient(socket, -1)
        sent = _send_dm(local_stack, owner, member, "subprotocol hello")
        seen = client.until(lambda applied: _messages(applied, "subprotocol"))
    assert _messages(seen, "subprotocol") == ["subprotocol hello"]
    # (read, so the shared stack's later tests find no unread message of this test's)
    requests.post(f"{local_stack.url}/api/v1/messages/flags", timeout=10,
                  auth=(member["email"], member["api_key"]),
                  data={"messages": f"[{sent}]", "op": "add", "flag": "read"}).raise_for_status()
    # AND wrong credentials in the subprotocol are refused before the handshake completes
    wrong = base64.urlsafe_b64encode(f"{member['email']}:{'x' * 32}".encode()).decode()
    with pytest.raises(InvalidStatus) as refused:
        connect(url, subprotocols=["teamchat.v1", f"teamchat.basic.{wrong.rstrip('=')}"],
                open_timeout=10)
    assert refused.value.response.status_code == 401
