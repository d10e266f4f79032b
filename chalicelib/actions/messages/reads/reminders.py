"""A user's undelivered reminders as the API shows them (GET /reminders, POST /register);
the writes are in actions/messages/reminders.py.
"""
from __future__ import annotations

from typing import Literal, TypedDict

from chalicelib.actions.messages.reads.scheduled_messages import undelivered
from chalicelib.models.scheduled_messages import ScheduledMessage

MAX_REMINDER_NOTE_LENGTH = 1000   # POST /register max_reminder_note_length (level 415)


class ReminderDict(TypedDict):
    reminder_id: int
    type: Literal["private"]
    to: list[int]
    content: str
    rendered_content: str
    scheduled_delivery_timestamp: int
    failed: bool
    reminder_target_message_id: int


def reminder_dict(item: ScheduledMessage) -> ReminderDict:
    return {"reminder_id": item.scheduled_message_id, "type": "private",
            "to": [item.sender_id], "content": item.content,
            "rendered_content": item.rendered_content,
            "scheduled_delivery_timestamp": item.scheduled_delivery_timestamp,
            "failed": bool(item.failed),
            "reminder_target_message_id": int(item.reminder_target_message_id)}


def reminders_state(realm_id: int, user_id: int) -> list[ReminderDict]:
    """The user's undelivered reminders, soonest first (one Query)."""
    return [reminder_dict(i) for i in undelivered(realm_id, user_id, reminders=True)]
