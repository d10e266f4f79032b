"""Delivery delay on the local stack `make run` starts: POST /messages response -> the
message at a waiting long-poll, and at a push-channel socket."""
from __future__ import annotations

import base64
import json
import statistics
import threading
import time
from typing import Any

import requests
from websockets.sync.client import connect

from infra.local.launcher import LocalStack, fresh_stack


def percentiles(delays: list[float]) -> str:
    delays = sorted(delays)
    p95 = delays[min(len(delays) - 1, round(0.95 * len(delays)) - 1)]
    return (f"p50 {statistics.median(delays):.0f} ms, p95 {p95:.0f} ms, "
            f"min {delays[0]:.0f} ms, max {delays[-1]:.0f} ms")


def _send(stack: LocalStack, sender: dict[str, Any], to: dict[str, Any], n: int) -> tuple[int, float]:
    sent = requests.post(f"{stack.url}/api/v1/messages", timeout=10,
                         auth=(sender["email"], sender["api_key"]), data={
                             "type": "direct", "to": f'[{to["user_id"]}]',
                             "content": f"delay probe {n}"})
    responded = time.perf_counter()
    assert sent.ok, sent.text
    return sent.json()["id"], responded


def longpoll_delays(stack: LocalStack, rounds: int) -> list[float]:
    accounts = stack.accounts()
    member, owner = accounts["member"], accounts["owner"]
    auth = (member["email"], member["api_key"])
    api = f"{stack.url}/api/v1"
    registered = requests.post(f"{api}/register", auth=auth, timeout=10,
                               data={"event_types": '["message"]'}).json()
    queue_id, last = registered["queue_id"], registered["last_event_id"]
    # Events already on their way (the demo's welcome messages) are read first, or the
    # first measured poll could answer with them alone.
    time.sleep(1)
    waiting = requests.get(f"{api}/events", auth=auth, timeout=30, params={
        "queue_id": queue_id, "last_event_id": last, "dont_block": "true"}).json()["events"]
    last = max([last, *(e["id"] for e in waiting)])
    delays: list[float] = []
    for n in range(rounds):
        result: dict[str, Any] = {}

        def poll(after: int = last, result: dict[str, Any] = result) -> None:
            body = requests.get(f"{api}/events", auth=auth, timeout=30, params={
                "queue_id": queue_id, "last_event_id": after}).json()
            result["at"], result["events"] = time.perf_counter(), body["events"]

        waiter = threading.Thread(target=poll)
        waiter.start()
        time.sleep(0.3)   # the poll is waiting before the message is sent
        message_id, responded = _send(stack, owner, member, n)
        waiter.join(timeout=30)
        assert any(e.get("message", {}).get("id") == message_id for e in result["events"])
        delays.append((result["at"] - responded) * 1000)
        last = result["events"][-1]["id"]
    return delays


def push_delays(stack: LocalStack, rounds: int) -> list[float]:
    accounts = stack.accounts()
    member, owner = accounts["member"], accounts["owner"]
    registered = requests.post(f"{stack.url}/api/v1/register", timeout=10,
                               auth=(member["email"], member["api_key"]),
                               data={"event_types": '["message"]', "client_capabilities":
                                     '{"teamchat_websocket": true}'}).json()
    token = base64.b64encode(f"{member['email']}:{member['api_key']}".encode()).decode()
    url = f"{registered['event_queue_websocket_url']}?queue_id={registered['queue_id']}"
    delays: list[float] = []
    with connect(url, additional_headers={"Authorization": f"Basic {token}"}) as socket:
        socket.send(json.dumps({"op": "get_events", "last_event_id": -1}))
        socket.recv(timeout=10)
        for n in range(rounds):
            time.sleep(0.1)
            message_id, responded = _send(stack, owner, member, n)
            while True:
                events = json.loads(socket.recv(timeout=10)).get("events", [])
                if any(e.get("message", {}).get("id") == message_id for e in events):
                    break
            delays.append((time.perf_counter() - responded) * 1000)
    return delays


def delivery_delays(rounds: int = 40) -> None:
    with fresh_stack() as stack:
        longpoll = longpoll_delays(stack, rounds)
        push = push_delays(stack, rounds)
    print(f"\n6. Delivery on the local stack ({rounds} direct messages each): POST /messages "
          "response -> the message at the client")
    print(f"   waiting long-poll: {percentiles(longpoll)} (target: p50 <= 150 ms)")
    print(f"   push channel:      {percentiles(push)}")
