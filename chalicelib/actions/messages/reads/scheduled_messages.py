"""A user's undelivered scheduled messages as the API shows them (GET /scheduled_messages,
POST /register); the writes and the delivery are in actions/messages/scheduled_messages.py.
"""
from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from chalicelib.models.channels import user_key
from chalicelib.models.scheduled_messages import ScheduledMessage


class ScheduledMessageDict(TypedDict):
    scheduled_message_id: int
    type: Literal["stream", "private"]
    to: int | list[int]
    topic: NotRequired[str]
    content: str
    rendered_content: str
    scheduled_delivery_timestamp: int
    failed: bool


def scheduled_message_dict(item: ScheduledMessage) -> ScheduledMessageDict:
    result: ScheduledMessageDict = {
        "scheduled_message_id": item.scheduled_message_id,
        "type": "stream" if item.type == "stream" else "private",
        "to": int(item.stream_id) if item.type == "stream" else sorted(item.recipient_ids),
        "content": item.content, "rendered_content": item.rendered_content,
        "scheduled_delivery_timestamp": item.scheduled_delivery_timestamp,
        "failed": bool(item.failed)}
    if item.type == "stream":
        result["topic"] = item.topic or ""
    return result


def undelivered(realm_id: int, user_id: int, *, reminders: bool = False
                ) -> list[ScheduledMessage]:
    """The user's undelivered scheduled messages, or reminders (reminders.py)."""
    target = ScheduledMessage.reminder_target_message_id
    items = ScheduledMessage.query(user_key(realm_id, user_id), consistent_read=True,
                                   filter_condition=ScheduledMessage.delivered_message_id
                                   .does_not_exist() & (target.exists() if reminders
                                                        else target.does_not_exist()))
    return sorted(items, key=lambda i: (i.scheduled_delivery_timestamp,
                                        i.scheduled_message_id))


def scheduled_messages_state(realm_id: int, user_id: int) -> list[ScheduledMessageDict]:
    """The user's undelivered scheduled messages, soonest first (one Query)."""
    return [scheduled_message_dict(i) for i in undelivered(realm_id, user_id)]
