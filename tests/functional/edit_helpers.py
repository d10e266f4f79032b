"""Shared setup for the message edit and topic tests."""
from __future__ import annotations

from typing import Any

from chalicelib.actions.channels.topics import note_topic_message
from chalicelib.actions.messages.prepare import new_channel_message
from chalicelib.actions.messages.reads.rendering import render_content
from chalicelib.models.channels import Stream
from chalicelib.models.ids import allocate_ids, realm_scope
from chalicelib.models.messages import Message
from chalicelib.models.realms import get_realm
from chalicelib.rules.timeutil import now_seconds


def channel(account, name: str, members: list | None = None, **extra: Any) -> int:
    """Creates (or joins) a channel with these accounts subscribed; returns its id."""
    params: dict[str, Any] = {"subscriptions": [{"name": name}], **extra}
    if members is not None:
        params["principals"] = [m.user_id for m in members]
    response = account.post("/users/me/subscriptions", params)
    assert response.ok, response.json
    return account.get("/get_stream_id", {"stream": name}).json["stream_id"]


def send(account, stream: str, topic: str, content: str = "hello") -> int:
    response = account.post("/messages", {"type": "stream", "to": stream, "topic": topic,
                                          "content": content})
    assert response.ok, response.json
    return response.json["id"]


def make_old(realm_id: int, message_ids: list[int], age_seconds: int) -> None:
    """Test setup only: pretends these messages were sent age_seconds ago."""
    for message_id in message_ids:
        Message(realm_id, message_id).update(
            actions=[Message.date_sent.set(now_seconds() - age_seconds)])


def bulk_messages(realm_id: int, sender_id: int, stream_id: int, topic: str, count: int,
                  age_seconds: int = 0) -> list[int]:
    """Writes `count` channel messages directly (fast setup for bulk-move tests)."""
    realm = get_realm(realm_id)
    stream = Stream.get(realm_id, stream_id)
    ids = list(allocate_ids(realm_scope(realm_id), "message", count))
    rendered = render_content(realm_id, "bulk")
    with Message.batch_write() as batch:
        for message_id in ids:
            message = new_channel_message(realm, sender_id, stream, topic, rendered)
            message.message_id = message_id
            message.date_sent = now_seconds() - age_seconds
            batch.save(message)
    note_topic_message(realm_id, stream_id, topic, ids[-1])
    return ids


def fetch(account, message_id: int) -> dict[str, Any]:
    response = account.get(f"/messages/{message_id}", {"allow_empty_topic_name": True})
    assert response.ok, response.json
    return response.json["message"]


def topic_ids(account, stream: str, topic: str) -> list[int]:
    response = account.get("/messages", {
        "anchor": "oldest", "num_before": 0, "num_after": 5000,
        "allow_empty_topic_name": True,
        "narrow": [{"operator": "channel", "operand": stream},
                   {"operator": "topic", "operand": topic}]})
    assert response.ok, response.json
    return [m["id"] for m in response.json["messages"]]
