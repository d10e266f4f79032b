"""Typing notifications (§4.3, §4.15): short-lived outbox records, no other state.

Who sees them is decided at fan-out: the audience's live queues whose owner receives
typing notifications, and for channel typing only queues with that capability.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Literal, TypedDict

from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.channels.topics import check_topic
from chalicelib.actions.messages.reads.access import access_message_to_edit
from chalicelib.actions.messages.reads.recipients import check_accessible
from chalicelib.actions.users.reads.access import caller_access
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import Audience, add_event, to_channel, to_users
from chalicelib.models.base import transaction
from chalicelib.models.realms import empty_topic_display_name, get_realm
from chalicelib.models.users import User

# A typing record is useless once clients have stopped showing it (15 s); keep a margin
# for a slow stream, then let TTL remove it.
TYPING_RECORD_TTL = timedelta(minutes=5)
TypingOp = Literal["start", "stop"]


class TypingUser(TypedDict):
    user_id: int
    email: str


class DirectTypingEvent(TypedDict):
    type: Literal["typing"]
    op: TypingOp
    message_type: Literal["direct"]
    sender: TypingUser
    recipients: list[TypingUser]


class ChannelTypingEvent(TypedDict):
    type: Literal["typing"]
    op: TypingOp
    message_type: Literal["stream"]
    sender: TypingUser
    stream_id: int
    topic: str


class DirectEditRecipient(TypedDict):
    type: Literal["direct"]
    user_ids: list[int]


class ChannelEditRecipient(TypedDict):
    type: Literal["channel"]
    channel_id: int
    topic: str


class TypingEditMessageEvent(TypedDict):
    type: Literal["typing_edit_message"]
    op: TypingOp
    sender_id: int
    message_id: int
    recipient: DirectEditRecipient | ChannelEditRecipient


def _sender(caller: Principal) -> TypingUser:
    return {"user_id": caller.user_id, "email": caller.email}


def _emit(caller: Principal, event: Mapping[str, object], audience: Audience) -> None:
    with transaction() as tx:   # one item: the change is the notification itself
        add_event(tx, caller.realm_id, event, audience, ttl=TYPING_RECORD_TTL)


def check_send_typing(caller: Principal, *, kind: str, op: TypingOp, to: list[int] | None,
                      stream_id: int | None, topic: str | None) -> None:
    if kind in ("stream", "channel"):
        _channel_typing(caller, op, stream_id, topic)
    else:
        _direct_typing(caller, op, to)


def _direct_typing(caller: Principal, op: TypingOp, to: list[int] | None) -> None:
    if to is None:
        raise ApiError("The 'to' parameter is required")
    if not to:
        raise ApiError("'to' must name at least one recipient")
    wanted = set(to) | {caller.user_id}
    users = {u.user_id: u for u in User.batch_get([(caller.realm_id, i) for i in wanted])}
    # One bad id rejects the whole request: a partial list would name another conversation.
    for user_id in to:
        if user_id not in users:
            raise ApiError(f"No user with ID {user_id} exists")
    recipients = [users[i] for i in sorted(users)]
    # The event names every recipient (and their address) to the typist too.
    check_accessible(recipients, caller_access(caller))
    event: DirectTypingEvent = {
        "type": "typing", "op": op, "message_type": "direct", "sender": _sender(caller),
        "recipients": [{"user_id": u.user_id, "email": u.email} for u in recipients]}
    _emit(caller, event, to_users([u.user_id for u in recipients if u.is_active]))


def _channel_typing(caller: Principal, op: TypingOp, stream_id: int | None,
                    topic: str | None) -> None:
    if stream_id is None:
        raise ApiError("Missing channel ID")
    if topic is None:
        raise ApiError("A topic is required")
    realm = get_realm(caller.realm_id)
    # Length and characters as for a message's topic, before the channel is read.
    topic = check_topic(topic, realm, enforce_policy=False)
    stream, _ = access_stream_by_id(caller, stream_id)
    display_name = empty_topic_display_name(realm)
    event: ChannelTypingEvent = {
        "type": "typing", "op": op, "message_type": "stream", "sender": _sender(caller),
        "stream_id": stream.stream_id, "topic": topic}
    _emit(caller, {**event, "_empty_topic_display_name": display_name},
          to_channel(stream.stream_id, public=False, subscribers_only=True))


def check_send_edit_typing(caller: Principal, message_id: int, op: TypingOp) -> None:
    # Only someone who may edit the message can be "editing" it.
    message = access_message_to_edit(caller, message_id)
    if message.type == "private":
        user_ids = sorted(message.recipient_ids)
        direct: TypingEditMessageEvent = {
            "type": "typing_edit_message", "op": op, "sender_id": caller.user_id,
            "message_id": message_id, "recipient": {"type": "direct", "user_ids": user_ids}}
        _emit(caller, direct, {"users": user_ids})
        return
    channel: TypingEditMessageEvent = {
        "type": "typing_edit_message", "op": op, "sender_id": caller.user_id,
        "message_id": message_id, "recipient": {
            "type": "channel", "channel_id": message.stream_id, "topic": message.topic}}
    _emit(caller, {**channel, "_empty_topic_display_name": empty_topic_display_name(
        get_realm(caller.realm_id))}, to_channel(message.stream_id, public=False, subscribers_only=True))
