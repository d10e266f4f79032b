"""Typing notifications (§4.3, §4.15): short-lived outbox records, no other state.

Who sees them is decided at fan-out: the audience's live queues whose owner receives
typing notifications, and for channel typing only queues with that capability.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Literal, TypedDict

from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.channels.topics import check_topic
from chalicelib.actions.messages.reads.access import access_message_to_edit
from chalicelib.actions.messages.reads.recipients import check_accessible
from chalicelib.actions.users.reads.access import (
    caller_access,
    inaccessible_to,
    realm_restricts_access,
)
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import ROLE_GUEST, Principal
from chalicelib.delivery.outbox import OutboxEntry, add_event, to_channel, to_users
from chalicelib.delivery.types import EventFacts
from chalicelib.models.base import transaction
from chalicelib.models.realms import empty_topic_display_name, get_realm
from chalicelib.models.users import User
from chalicelib.rules.email_visibility import stand_in_email

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


def _emit(caller: Principal, *entries: OutboxEntry) -> None:
    with transaction() as tx:   # the notification itself (in forms, for limited guests)
        for entry in entries:
            add_event(tx, caller.realm_id, *entry, ttl=TYPING_RECORD_TTL)


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
    listeners = [u for u in recipients if u.is_active]
    # A guest the realm limits hears whom it may not access by id and stand-in address.
    guests = [u for u in listeners if u.role == ROLE_GUEST and u.user_id != caller.user_id]
    realm = get_realm(caller.realm_id) if guests else None
    hidden = inaccessible_to(realm, guests, recipients) if realm is not None else {}
    subdomain = realm.subdomain if realm is not None else ""
    _emit(caller, OutboxEntry(event, to_users(
        [u.user_id for u in listeners if u.user_id not in hidden])),
          *[OutboxEntry(_hiding(event, ids, subdomain), to_users([guest]))
            for guest, ids in sorted(hidden.items())])


def _hiding(event: DirectTypingEvent, user_ids: set[int], subdomain: str
            ) -> DirectTypingEvent:
    """The event naming these users by id and stand-in address, as placeholders show
    them."""
    def shown(person: TypingUser) -> TypingUser:
        return {"user_id": person["user_id"], "email": stand_in_email(
            person["user_id"], subdomain)} if person["user_id"] in user_ids else person
    return {**event, "sender": shown(event["sender"]),
            "recipients": [shown(r) for r in event["recipients"]]}


def _channel_typing(caller: Principal, op: TypingOp, stream_id: int | None,
                    topic: str | None) -> None:
    if stream_id is None:
        raise ApiError("Missing channel ID")
    if topic is None:
        raise ApiError("A topic is required")
    realm = get_realm(caller.realm_id)
    # Length and characters as for a message's topic, before the channel is read.
    topic = check_topic(topic, realm, enforce_policy=False)
    stream, subscription = access_stream_by_id(caller, stream_id)
    display_name = empty_topic_display_name(realm)
    event: ChannelTypingEvent = {
        "type": "typing", "op": op, "message_type": "stream", "sender": _sender(caller),
        "stream_id": stream.stream_id, "topic": topic}
    facts: EventFacts = {"empty_topic_display_name": display_name}
    if subscription is None and realm_restricts_access(realm):
        # Subscribers who may not access the typist hear only their id (as a message's
        # sender from outside the channel is shown).
        facts["actor_outside_channel"] = caller.user_id
    _emit(caller, OutboxEntry(
        event, to_channel(stream.stream_id, public=False, subscribers_only=True), facts))


def check_send_edit_typing(caller: Principal, message_id: int, op: TypingOp) -> None:
    # Only someone who may edit the message can be "editing" it.
    message = access_message_to_edit(caller, message_id)
    if message.type == "private":
        user_ids = sorted(message.recipient_ids)
        direct: TypingEditMessageEvent = {
            "type": "typing_edit_message", "op": op, "sender_id": caller.user_id,
            "message_id": message_id, "recipient": {"type": "direct", "user_ids": user_ids}}
        _emit(caller, OutboxEntry(direct, to_users(user_ids)))
        return
    channel: TypingEditMessageEvent = {
        "type": "typing_edit_message", "op": op, "sender_id": caller.user_id,
        "message_id": message_id, "recipient": {
            "type": "channel", "channel_id": message.stream_id, "topic": message.topic}}
    _emit(caller, OutboxEntry(
        channel, to_channel(message.stream_id, public=False, subscribers_only=True),
        {"empty_topic_display_name": empty_topic_display_name(get_realm(caller.realm_id))}))
