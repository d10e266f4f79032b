"""One message read with permission: the message, its channel and the caller's subscription.

Missing and forbidden look the same ("Invalid message(s)"), as the reference answers.
Changes that act on a message (reactions, deletion) also refuse messages of archived
channels, which stay readable.
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib.actions.streams import can_read_message, get_subscription
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError
from chalicelib.models.messages import Message
from chalicelib.models.streams import Stream, Subscription, get_stream


def invalid_message() -> ApiError:
    return ApiError("Invalid message(s)")


@dataclass
class AccessedMessage:
    message: Message
    stream: Stream | None               # channel messages only
    subscription: Subscription | None   # the caller's, if subscribed


def check_message_access(caller: Principal, message: Message, *, modifying: bool = False
                         ) -> AccessedMessage:
    """Raises unless the caller may read (and, if `modifying`, act on) the message."""
    if message.type == "private":
        if caller.user_id not in message.recipient_ids:
            raise invalid_message()
        return AccessedMessage(message, None, None)
    stream = get_stream(caller.realm_id, message.stream_id)
    subscription = get_subscription(caller.realm_id, caller.user_id, message.stream_id)
    if stream is None or not can_read_message(stream, subscription, message.message_id, caller):
        raise invalid_message()
    if modifying and stream.is_archived:
        raise invalid_message()
    return AccessedMessage(message, stream, subscription)


def access_message(caller: Principal, message_id: int, *, modifying: bool = False
                   ) -> AccessedMessage:
    """The message by id, if the caller may read it (see check_message_access)."""
    message = Message.get_or_none(caller.realm_id, message_id)
    if message is None:
        raise invalid_message()
    return check_message_access(caller, message, modifying=modifying)
