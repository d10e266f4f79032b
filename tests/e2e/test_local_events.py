"""Real-time events on the local stack, read by the official client's event loop."""
from __future__ import annotations

import contextlib
import queue
import threading
import time
from typing import Any

from tests.e2e.test_local_stack import client_for


class _Stop(Exception):
    """Raised from the callback to end call_on_each_event, which otherwise loops forever."""


def test_call_on_each_event_receives_typing_and_messages(local_stack):
    # GIVEN the member listening with the official client's event loop
    listener, sender = client_for(local_stack, "member"), client_for(local_stack, "owner")
    member_id = local_stack.accounts()["member"]["user_id"]
    received: queue.Queue[dict[str, Any]] = queue.Queue()
    stop = threading.Event()

    def on_event(event: dict[str, Any]) -> None:
        received.put(event)
        # Only a message ends the loop: typing events of the repeated `start` calls may
        # still be arriving once the message is sent.
        if stop.is_set() and event["type"] == "message":
            raise _Stop

    def listen() -> None:
        with contextlib.suppress(_Stop):
            listener.call_on_each_event(on_event, event_types=["message", "typing"])

    threading.Thread(target=listen, daemon=True).start()

    def wait_for(predicate, seconds: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                event = received.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if predicate(event):
                return event
        return None

    # WHEN the owner starts typing to the member (repeated until the listener's queue,
    # registered in its own thread, exists)
    typing = None
    deadline = time.monotonic() + 30
    while typing is None and time.monotonic() < deadline:
        assert sender.set_typing_status({"op": "start", "to": [member_id]})["result"] == "success"
        typing = wait_for(lambda e: e["type"] == "typing", 1.0)
    # THEN the listener sees it, with the sender and both participants
    assert typing is not None, "no typing event reached call_on_each_event"
    assert typing["op"] == "start" and typing["sender"]["email"] == "owner@demo.example.com"
    assert {r["user_id"] for r in typing["recipients"]} >= {member_id}

    # WHEN the owner sends the member a direct message
    sent = sender.send_message({"type": "direct", "to": [member_id], "content": "ping from e2e"})
    assert sent["result"] == "success", sent
    stop.set()
    message = wait_for(lambda e: e["type"] == "message" and e["message"]["id"] == sent["id"],
                       15.0)
    # THEN the listener receives it
    assert message is not None, "the message did not reach call_on_each_event"
    assert "ping from e2e" in message["message"]["content"]


def test_call_on_each_message_receives_twenty_messages_in_order(local_stack):
    # GIVEN the member listening with the official client's message loop, and a channel
    # both are in
    listener, sender = client_for(local_stack, "member"), client_for(local_stack, "owner")
    for client in (listener, sender):
        assert client.add_subscriptions(streams=[{"name": "twenty"}])["result"] == "success"
    received: queue.Queue[dict[str, Any]] = queue.Queue()
    registered = threading.Event()
    original_register = listener.register

    def register(*args: Any, **kwargs: Any) -> dict[str, Any]:
        answer = original_register(*args, **kwargs)
        registered.set()
        return answer

    listener.register = register   # type: ignore[method-assign]

    def on_message(message: dict[str, Any]) -> None:
        received.put(message)
        if received.qsize() >= 20:
            raise _Stop

    def listen() -> None:
        with contextlib.suppress(_Stop):
            listener.call_on_each_message(on_message)

    threading.Thread(target=listen, daemon=True).start()
    assert registered.wait(30), "the message loop did not register a queue"
    # WHEN the owner sends twenty messages one after another
    sent = [sender.send_message({"type": "stream", "to": "twenty", "topic": "count",
                                 "content": f"number {n}"})["id"] for n in range(20)]
    # THEN the listener receives all twenty, each once, in the order they were sent
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while len(got) < 20 and time.monotonic() < deadline:
        with contextlib.suppress(queue.Empty):
            got.append(received.get(timeout=1))
    assert [m["id"] for m in got] == sent
    # (raw Markdown: the loop registers without apply_markdown, whose default is false)
    assert [m["content"] for m in got] == [f"number {n}" for n in range(20)]
