"""Scheduled messages: GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{id},
and their delivery.

Each scheduled message has a one-time EventBridge Scheduler schedule (aws/scheduler.py)
named after it, created before the item is written and moved or deleted with it. At its
time the schedule invokes `deliver_scheduled_message`, which sends the message as its
sender through the ordinary send path, and in the same transaction marks the item
delivered (conditioned on it not being delivered yet, at the version the schedule was
set for): a schedule that fires twice sends once. A send the sender may no longer make
(deactivated, lost access to the channel, recipient gone) marks it `failed`, with an
`update` event, so clients show it; editing it with a new time schedules it again.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.channels.topics import check_topic
from chalicelib.actions.messages.reads.recipients import direct_recipient_users
from chalicelib.actions.messages.reads.rendering import check_content, render_content
from chalicelib.actions.messages.reads.scheduled_messages import (
    ScheduledMessageDict,
    scheduled_message_dict,
    scheduled_messages_state,
)
from chalicelib.actions.messages.send import check_send_message
from chalicelib.actions.users.system_bots import notification_bot
from chalicelib.aws.log import logger
from chalicelib.aws.scheduler import delete_schedule, put_schedule
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channels import user_key
from chalicelib.models.ids import allocate_id
from chalicelib.models.realms import get_realm
from chalicelib.models.scheduled_messages import ScheduledMessage
from chalicelib.models.users import User
from chalicelib.rules.timeutil import now_seconds

NOT_FOUND = "There is no scheduled message with this ID."


class GetScheduledMessagesResult(TypedDict):
    scheduled_messages: list[ScheduledMessageDict]


class CreateScheduledMessageResult(TypedDict):
    scheduled_message_id: int


class ScheduledMessagesAddEvent(TypedDict):
    type: Literal["scheduled_messages"]
    op: Literal["add"]
    scheduled_messages: list[ScheduledMessageDict]


class ScheduledMessagesUpdateEvent(TypedDict):
    type: Literal["scheduled_messages"]
    op: Literal["update"]
    scheduled_message: ScheduledMessageDict


class ScheduledMessagesRemoveEvent(TypedDict):
    type: Literal["scheduled_messages"]
    op: Literal["remove"]
    scheduled_message_id: int


class RemindersRemoveEvent(TypedDict):
    """A reminder gone: sent or deleted (reminders.py)."""

    type: Literal["reminders"]
    op: Literal["remove"]
    reminder_id: int


def schedule_name(item: ScheduledMessage) -> str:
    return f"{config.table_prefix()}sm-{item.realm_id}-{item.sender_id}-" \
           f"{item.scheduled_message_id}"


def _payload(item: ScheduledMessage) -> dict[str, Any]:
    return {"realm_id": item.realm_id, "user_id": item.sender_id,
            "scheduled_message_id": item.scheduled_message_id, "version": item.version}


# ---- reading --------------------------------------------------------------------------


def get_scheduled_messages(caller: Principal) -> GetScheduledMessagesResult:
    return {"scheduled_messages": scheduled_messages_state(caller.realm_id, caller.user_id)}


def _own(caller: Principal, scheduled_message_id: int) -> ScheduledMessage:
    item = ScheduledMessage.get_or_none(user_key(caller.realm_id, caller.user_id),
                                        scheduled_message_id)
    if item is None or item.delivered_message_id is not None or \
            item.reminder_target_message_id is not None:
        raise ApiError(NOT_FOUND, http_status=404)
    return item


# ---- checking -------------------------------------------------------------------------

def _message_type(message_type: str) -> Literal["stream", "private"]:
    if message_type in ("stream", "channel"):
        return "stream"
    if message_type in ("direct", "private"):
        return "private"
    raise ApiError("Unknown message type: use 'channel' or 'direct'")


def check_time(timestamp: int) -> int:
    if timestamp <= now_seconds():
        raise ApiError("The scheduled delivery time must be in the future.")
    return timestamp


def _check_target(caller: Principal, item: ScheduledMessage, message_type: str, to: str,
                  topic: str | None) -> None:
    """Sets the item's target: a channel the caller may send to, or existing users."""
    item.type = _message_type(message_type)
    try:
        target = json.loads(to)
    except ValueError:
        target = to
    if item.type == "stream":
        if isinstance(target, list) and len(target) == 1:
            target = target[0]
        if not isinstance(target, int) or isinstance(target, bool):
            raise ApiError("Invalid 'to': give the channel's id.")
        stream, _ = access_stream_by_id(caller, target)
        item.stream_id = stream.stream_id
        item.recipient_ids = []
        item.topic = check_topic(topic, get_realm(caller.realm_id), stream)
    else:
        users = direct_recipient_users(caller, to)
        item.stream_id = None
        item.topic = None
        item.recipient_ids = sorted({u.user_id for u in users})


def _set_content(item: ScheduledMessage, caller: Principal, content: str) -> None:
    item.content = check_content(content)
    item.rendered_content = render_content(caller.realm_id, item.content,
                                           author=caller).rendered


# ---- changing -------------------------------------------------------------------------

def check_create_scheduled_message(caller: Principal, *, message_type: str, to: str,
                                   content: str, topic: str | None,
                                   scheduled_delivery_timestamp: int,
                                   read_by_sender: bool | None
                                   ) -> CreateScheduledMessageResult:
    item = ScheduledMessage(user_key(caller.realm_id, caller.user_id), 0,
                            realm_id=caller.realm_id, sender_id=caller.user_id,
                            read_by_sender=read_by_sender)
    _check_target(caller, item, message_type, to, topic)
    _set_content(item, caller, content)
    item.scheduled_delivery_timestamp = check_time(scheduled_delivery_timestamp)

    def added(tx: Any) -> None:
        event: ScheduledMessagesAddEvent = {
            "type": "scheduled_messages", "op": "add",
            "scheduled_messages": [scheduled_message_dict(item)]}
        add_event(tx, caller.realm_id, event, to_users([caller.user_id]))

    schedule_message(item, added)
    return {"scheduled_message_id": item.scheduled_message_id}


def schedule_message(item: ScheduledMessage, add_events: Callable[[Any], None]) -> None:
    """Gives a new scheduled message (or reminder) its id and schedule, and writes it
    with the events `add_events` adds to the same transaction."""
    item.scheduled_message_id = allocate_id(item.realm_id, "scheduled_message")
    # The schedule first: a schedule whose item was never written finds nothing to send.
    put_schedule(schedule_name(item), item.scheduled_delivery_timestamp, _payload(item),
                 update=False)
    try:
        with transaction() as tx:
            tx.save(item, condition=ScheduledMessage.scheduled_message_id.does_not_exist())
            add_events(tx)
    except Exception:
        delete_schedule(schedule_name(item))
        raise


def check_edit_scheduled_message(caller: Principal, scheduled_message_id: int, *,
                                 message_type: str | None, to: str | None,
                                 content: str | None, topic: str | None,
                                 scheduled_delivery_timestamp: int | None) -> None:
    item = _own(caller, scheduled_message_id)
    version = item.version
    if message_type is not None and to is None:
        raise ApiError("Changing a scheduled message's type needs its new recipients ('to').")
    if item.failed and scheduled_delivery_timestamp is None:
        raise ApiError("The delivery time has to be later than now.")
    if to is not None:
        new_type = message_type or item.type
        if _message_type(new_type) == "stream" and topic is None and item.type != "stream":
            raise ApiError("Turning a scheduled message into a channel message needs a topic.")
        _check_target(caller, item, new_type, to,
                      topic if topic is not None else item.topic)
    elif topic is not None and item.type == "stream":
        stream, _ = access_stream_by_id(caller, int(item.stream_id))
        item.topic = check_topic(topic, get_realm(caller.realm_id), stream)
    if content is not None:
        _set_content(item, caller, content)
    if scheduled_delivery_timestamp is not None:
        item.scheduled_delivery_timestamp = check_time(scheduled_delivery_timestamp)
    item.failed = False
    item.failure = None
    item.version = version + 1
    event: ScheduledMessagesUpdateEvent = {"type": "scheduled_messages", "op": "update",
                                           "scheduled_message": scheduled_message_dict(item)}
    try:
        with transaction() as tx:
            tx.save(item, condition=(ScheduledMessage.version == version)
                    & ScheduledMessage.delivered_message_id.does_not_exist())
            add_event(tx, caller.realm_id, event, to_users([caller.user_id]))
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError("The scheduled message changed meanwhile; try again."
                           ) from error
        raise
    # Moved after the item: a firing in between finds a newer version and sends nothing;
    # a failed one ran and deleted its schedule, so it gets a new one.
    try:
        put_schedule(schedule_name(item), item.scheduled_delivery_timestamp,
                     _payload(item), update=True)
    except Exception:  # noqa: BLE001 - its schedule ran already: make a new one
        put_schedule(schedule_name(item), item.scheduled_delivery_timestamp,
                     _payload(item), update=False)


def do_delete_scheduled_message(caller: Principal, scheduled_message_id: int) -> None:
    item = _own(caller, scheduled_message_id)
    event: ScheduledMessagesRemoveEvent = {"type": "scheduled_messages", "op": "remove",
                                           "scheduled_message_id": scheduled_message_id}
    try:
        with transaction() as tx:
            tx.delete(item, condition=ScheduledMessage.delivered_message_id.does_not_exist())
            add_event(tx, caller.realm_id, event, to_users([caller.user_id]))
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError(NOT_FOUND, http_status=404) from error
        raise
    delete_schedule(schedule_name(item))


# ---- delivering -----------------------------------------------------------------------

def deliver_scheduled_message(payload: dict[str, Any]) -> str:
    """The schedule's target: sends the message once; returns what happened (for logs)."""
    realm_id, user_id = int(payload["realm_id"]), int(payload["user_id"])
    item = ScheduledMessage.get_or_none(user_key(realm_id, user_id),
                                        int(payload["scheduled_message_id"]))
    if item is None or item.delivered_message_id is not None:
        return "gone"
    if item.version != int(payload.get("version", item.version)) or item.failed:
        return "superseded"   # edited since this schedule was set: the moved one sends it
    sender = User.get_or_none(realm_id, user_id)
    reminder = item.reminder_target_message_id is not None
    removed: ScheduledMessagesRemoveEvent | RemindersRemoveEvent = {
        "type": "reminders", "op": "remove", "reminder_id": item.scheduled_message_id
    } if reminder else {"type": "scheduled_messages", "op": "remove",
                        "scheduled_message_id": item.scheduled_message_id}

    def claim(tx: Any, message_id: int) -> None:
        tx.update(item, actions=[ScheduledMessage.delivered_message_id.set(message_id)],
                  condition=ScheduledMessage.delivered_message_id.does_not_exist()
                  & (ScheduledMessage.version == item.version))
        add_event(tx, realm_id, removed, to_users([user_id]))

    try:
        if sender is None or not sender.is_active:
            raise ApiError("The sender's account is deactivated.")
        # A reminder comes from the notification bot, to its user alone.
        author = notification_bot(realm_id) if reminder else sender
        caller = Principal(realm_id=realm_id, user_id=author.user_id, email=author.email,
                           role=author.role, is_bot=author.is_bot)
        to = str(item.stream_id) if item.type == "stream" else json.dumps(item.recipient_ids)
        check_send_message(caller, message_type=item.type, to=to, topic=item.topic,
                           content=item.content, client="Scheduled",
                           read_by_sender=item.read_by_sender
                           if item.read_by_sender is not None else True, also=claim)
    except TransactWriteError as error:
        if is_condition_failure(error):
            return "already sent"   # another firing sent it, or it was edited meanwhile
        raise
    except ApiError as error:
        _fail(item, error.msg)
        return "failed"
    return "sent"


def _fail(item: ScheduledMessage, reason: str) -> None:
    """Marks it failed (only as read), with the update event its sender's clients show."""
    logger.info("scheduled message not sent", extra={"reason": reason})
    item.failed = True
    item.failure = reason
    event: ScheduledMessagesUpdateEvent = {"type": "scheduled_messages", "op": "update",
                                           "scheduled_message": scheduled_message_dict(item)}
    reminder = item.reminder_target_message_id is not None   # no reminders update event
    try:
        with transaction() as tx:
            tx.update(item, actions=[ScheduledMessage.failed.set(True),
                                     ScheduledMessage.failure.set(reason)],
                      condition=ScheduledMessage.delivered_message_id.does_not_exist()
                      & (ScheduledMessage.version == item.version))
            if not reminder:
                add_event(tx, item.realm_id, event, to_users([item.sender_id]))
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
