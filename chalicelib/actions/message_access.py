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


class ChannelReads:
    """Which messages one caller can read: each channel and the caller's subscription to
    it read once, however many of its messages are checked."""

    def __init__(self, caller: Principal) -> None:
        self.caller = caller
        self._channels: dict[int, tuple[Stream | None, Subscription | None]] = {}

    def channel(self, stream_id: int) -> tuple[Stream | None, Subscription | None]:
        if stream_id not in self._channels:
            realm_id, user_id = self.caller.realm_id, self.caller.user_id
            self._channels[stream_id] = (get_stream(realm_id, stream_id),
                                         get_subscription(realm_id, user_id, stream_id))
        return self._channels[stream_id]

    def can_read(self, message: Message) -> bool:
        if message.type == "private":
            return self.caller.user_id in message.recipient_ids
        stream, subscription = self.channel(message.stream_id)
        return stream is not None and can_read_message(stream, subscription,
                                                       message.message_id, self.caller)


def check_message_access(caller: Principal, message: Message, *, modifying: bool = False
                         ) -> AccessedMessage:
    """Raises unless the caller may read (and, if `modifying`, act on) the message."""
    reads = ChannelReads(caller)
    if not reads.can_read(message):
        raise invalid_message()
    if message.type == "private":
        return AccessedMessage(message, None, None)
    stream, subscription = reads.channel(message.stream_id)
    if modifying and stream is not None and stream.is_archived:
        raise invalid_message()
    return AccessedMessage(message, stream, subscription)


def access_message(caller: Principal, message_id: int, *, modifying: bool = False
                   ) -> AccessedMessage:
    """The message by id, if the caller may read it (see check_message_access)."""
    message = Message.get_or_none(caller.realm_id, message_id)
    if message is None:
        raise invalid_message()
    return check_message_access(caller, message, modifying=modifying)
