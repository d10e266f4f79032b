"""Message reminders (levels 381, 399, 415): POST /reminders, GET /reminders, DELETE
/reminders/{id}, and the `reminders` events.

A reminder is a scheduled message (models/scheduled_messages.py) with a
`reminder_target_message_id`: it lives beside the user's scheduled messages, with the
same one-time schedule and the same once-only delivery (scheduled_messages.py), but the
notification bot sends it, to the user alone, quoting the message it is about. Its
content is written when it is created, from the message as the user could read it then.
"""
from __future__ import annotations

from typing import Any, Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.messages.reads.access import access_message
from chalicelib.actions.messages.reads.reminders import (
    MAX_REMINDER_NOTE_LENGTH,
    ReminderDict,
    reminder_dict,
    reminders_state,
)
from chalicelib.actions.messages.reads.rendering import render_content
from chalicelib.actions.messages.report import silent
from chalicelib.actions.messages.scheduled_messages import (
    RemindersRemoveEvent,
    check_time,
    schedule_message,
    schedule_name,
)
from chalicelib.aws.scheduler import delete_schedule
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channels import get_stream, user_key
from chalicelib.models.messages import Message
from chalicelib.models.scheduled_messages import ScheduledMessage
from chalicelib.models.users import User

NOT_FOUND = "There is no reminder with this ID."
TRUNCATED = "\n[cut short]"


class GetRemindersResult(TypedDict):
    reminders: list[ReminderDict]


class CreateReminderResult(TypedDict):
    reminder_id: int


class RemindersAddEvent(TypedDict):
    type: Literal["reminders"]
    op: Literal["add"]
    reminders: list[ReminderDict]


def removed_event(reminder_id: int) -> RemindersRemoveEvent:
    return {"type": "reminders", "op": "remove", "reminder_id": reminder_id}


def get_reminders(caller: Principal) -> GetRemindersResult:
    return {"reminders": reminders_state(caller.realm_id, caller.user_id)}


def check_create_reminder(caller: Principal, message_id: int,
                          scheduled_delivery_timestamp: int, note: str | None
                          ) -> CreateReminderResult:
    note = (note or "").rstrip().lstrip("\n")
    if len(note) > MAX_REMINDER_NOTE_LENGTH:
        raise ApiError(f"A reminder's note may be at most {MAX_REMINDER_NOTE_LENGTH} "
                       "characters long.")
    delivery = check_time(scheduled_delivery_timestamp)
    message = access_message(caller, message_id).message
    item = ScheduledMessage(user_key(caller.realm_id, caller.user_id), 0,
                            realm_id=caller.realm_id, sender_id=caller.user_id,
                            type="private", recipient_ids=[caller.user_id],
                            reminder_target_message_id=message.message_id,
                            scheduled_delivery_timestamp=delivery, read_by_sender=False)
    item.content = reminder_content(message, note)
    item.rendered_content = render_content(caller.realm_id, item.content,
                                           author=caller).rendered

    def added(tx: Any) -> None:
        event: RemindersAddEvent = {"type": "reminders", "op": "add",
                                    "reminders": [reminder_dict(item)]}
        add_event(tx, caller.realm_id, event, to_users([caller.user_id]))

    schedule_message(item, added)
    return {"reminder_id": item.scheduled_message_id}


def do_delete_reminder(caller: Principal, reminder_id: int) -> None:
    item = ScheduledMessage.get_or_none(user_key(caller.realm_id, caller.user_id),
                                        reminder_id)
    if item is None or item.delivered_message_id is not None or \
            item.reminder_target_message_id is None:
        raise ApiError(NOT_FOUND, http_status=404)
    try:
        with transaction() as tx:
            tx.delete(item, condition=ScheduledMessage.delivered_message_id.does_not_exist())
            add_event(tx, caller.realm_id, removed_event(reminder_id),
                      to_users([caller.user_id]))
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError(NOT_FOUND, http_status=404) from error
        raise
    delete_schedule(schedule_name(item))


def reminder_content(message: Message, note: str) -> str:
    """What the notification bot will send: where the message is, the note, and the
    message quoted (its mentions made silent), cut to fit a message."""
    if message.type == "stream":
        stream = get_stream(message.realm_id, int(message.stream_id))
        name = stream.name if stream is not None else str(message.stream_id)
        where = f"[a message in #{name} > {message.topic}](#narrow/id/{message.message_id})"
    else:
        where = f"[a direct message](#narrow/id/{message.message_id})"
    lines = [f"Here is the reminder you asked for, about {where}."]
    if note:
        lines += ["Your note:", *(f"> {line}" for line in note.splitlines())]
    sender = User.get_or_none(message.realm_id, message.sender_id)
    name = sender.full_name if sender is not None else "Someone"
    lines += ["", f"@_**{name}|{message.sender_id}** wrote:"]
    head = "\n".join(lines) + "\n"
    room = config.MAX_MESSAGE_LENGTH - len(head)
    quoted = "\n".join(f"> {line}" for line in silent(message.content).splitlines())
    if len(quoted) > room:
        quoted = quoted[:room - len(TRUNCATED)] + TRUNCATED
    return head + quoted
