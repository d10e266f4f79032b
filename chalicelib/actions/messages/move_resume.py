"""Resuming a bulk move: the recorded move a retried request repeats, and what is left of it.

A move longer than one batch records its plan (keyed by the target message) in its
first batch and marks it done in its last. A client that retries the same request
after a crash (or a timeout) finds the record; the messages still to move are those
of the old topic that do not carry this move's history entry yet.
"""
from __future__ import annotations

from typing import Any

from chalicelib.actions.channels.topics import check_topic
from chalicelib.actions.messages.move_plan import MovePlan
from chalicelib.actions.messages.reads.access import can_read_message
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import get_stream, get_subscription
from chalicelib.models.message_moves import MessageMove
from chalicelib.models.messages import Message, topic_key
from chalicelib.models.realms import Realm

# What a move reads of each message besides the target: not the content, which for a
# large topic is most of the bytes.
MOVE_ATTRIBUTES = ["realm_id", "message_id", "type", "sender_id", "stream_id", "topic",
                   "topic_key", "date_sent", "edit_history", "version"]


def carries_move(message: Message, user_id: int, edit_timestamp: int) -> bool:
    """Whether the message already has the history entry of this (recorded) move."""
    return any(entry.get("timestamp") == edit_timestamp and entry.get("user_id") == user_id
               and ("prev_topic" in entry or "prev_stream" in entry)
               for entry in message.edit_history or ())


def find_resumable_move(caller: Principal, realm: Realm, target: Message, topic: str | None,
                        stream_id: int | None, propagate_mode: str) -> MovePlan | None:
    """The recorded move this request repeats, if the target already reached its end."""
    if target.type != "stream" or (topic is None and stream_id is None) or \
            propagate_mode == "change_one":   # one message: one batch, never recorded
        return None
    record = MessageMove.get_or_none(caller.realm_id, target.message_id)
    if record is None or record.user_id != caller.user_id:
        return None
    saved: dict[str, Any] = record.plan
    if (target.stream_id, target.topic) != (saved["new_stream_id"], saved["new_topic"]) or \
            propagate_mode != saved["propagate_mode"] or \
            (stream_id is not None and stream_id != saved["new_stream_id"]):
        return None
    old_stream = get_stream(caller.realm_id, saved["old_stream_id"])
    new_stream = get_stream(caller.realm_id, saved["new_stream_id"])
    if old_stream is None or new_stream is None:
        return None
    if topic is not None and _normalized(topic, realm, new_stream) != saved["new_topic"]:
        return None
    plan = MovePlan.from_record(saved, old_stream, new_stream,
                                edit_timestamp=record.edit_timestamp,
                                finished=record.status == "done")
    if not plan.finished:
        plan.messages = _still_to_move(caller, target, plan)
    return plan


def _normalized(topic: str, realm: Realm, stream: Any) -> str | None:
    """The topic as the original request stored it (display name read as empty)."""
    try:
        return check_topic(topic, realm, stream)
    except ApiError:
        return None


def _still_to_move(caller: Principal, target: Message, plan: MovePlan) -> list[Message]:
    old_stream = plan.old_stream
    subscription = get_subscription(caller.realm_id, caller.user_id, old_stream.stream_id)
    key = topic_key(caller.realm_id, old_stream.stream_id, plan.old_topic)
    condition = (Message.message_id >= target.message_id
                 if plan.propagate_mode == "change_later" else None)
    assert plan.edit_timestamp is not None  # nosec B101 # type narrowing (set above)
    found = []
    for message in Message.by_topic.query(key, range_key_condition=condition,
                                          attributes_to_get=MOVE_ATTRIBUTES):
        # A case-only rename keeps the topic key: moved messages are told apart by
        # their topic and their history entry.
        if message.topic_key != key or message.message_id == target.message_id or \
                (message.stream_id, message.topic) == (plan.new_stream.stream_id,
                                                       plan.new_topic) or \
                carries_move(message, caller.user_id, plan.edit_timestamp):
            continue
        if can_read_message(old_stream, subscription, message.message_id, caller):
            found.append(message)
    return sorted(found, key=lambda m: m.message_id)
