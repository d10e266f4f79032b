"""Reading messages with permission: whether a caller may read each of many (`Access`),
and one message with its channel and the caller's subscription.

Missing and forbidden look the same ("Invalid message(s)"), as the reference answers.
A message of a channel the caller left stays readable if it came to them while they were
subscribed (Subscription.received_ranges), as the reference keeps received messages.
Changes that act on a message (reactions, deletion) also refuse messages of archived
channels, which stay readable.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from chalicelib.actions.channels.reads.channels import can_read_message
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream, Subscription, get_stream, user_key
from chalicelib.models.messages import Message


def invalid_message() -> ApiError:
    return ApiError("Invalid message(s)")


@dataclass
class AccessedMessage:
    message: Message
    stream: Stream | None               # channel messages only
    subscription: Subscription | None   # the caller's, if subscribed


class Access:
    """Whether the caller may read each message; channels and subscriptions read once."""

    def __init__(self, caller: Principal) -> None:
        self.caller = caller
        self.channels: dict[int, tuple[Stream | None, Subscription | None]] = {}
        # Every subscription item of the caller, left ones too: what they received.
        self.history: dict[int, Subscription] = {}

    def load(self, messages: Iterable[Message]) -> None:
        """Reads, in one batch each, the channels and subscriptions not known yet."""
        wanted = sorted({int(m.stream_id) for m in messages
                         if m.type == "stream" and m.stream_id not in self.channels})
        if not wanted:
            return
        realm_id, key = self.caller.realm_id, user_key(self.caller.realm_id,
                                                       self.caller.user_id)
        streams = {s.stream_id: s for s in Stream.batch_get([(realm_id, i) for i in wanted])}
        subs = {s.stream_id: s for s in Subscription.batch_get([(key, i) for i in wanted])}
        for stream_id in wanted:
            self._keep(stream_id, streams.get(stream_id), subs.get(stream_id))

    def _keep(self, stream_id: int, stream: Stream | None,
              subscription: Subscription | None) -> None:
        active = subscription is not None and subscription.active
        self.channels[stream_id] = (stream, subscription if active else None)
        if subscription is not None:
            self.history[stream_id] = subscription

    def channel(self, stream_id: int) -> tuple[Stream | None, Subscription | None]:
        """The channel and the caller's subscription to it (read once)."""
        if stream_id not in self.channels:
            self._keep(stream_id, get_stream(self.caller.realm_id, stream_id),
                       Subscription.get_or_none(user_key(self.caller.realm_id,
                                                         self.caller.user_id), stream_id))
        return self.channels[stream_id]

    def may_read(self, message: Message) -> bool:
        if message.type == "private":
            return self.caller.user_id in message.recipient_ids
        stream_id = int(message.stream_id)
        stream, subscription = self.channel(stream_id)
        if stream is None:
            return False
        if can_read_message(stream, subscription, message.message_id, self.caller):
            return True
        earlier = self.history.get(stream_id)
        return earlier is not None and earlier.received(message.message_id)

    def received_span(self, stream_id: int) -> tuple[int, int] | None:
        """For a channel whose messages the caller may read only as received ones (a
        private channel they left): the lowest and highest id received (an empty span
        if none); None when they may read it otherwise."""
        stream, subscription = self.channel(stream_id)
        if stream is None or subscription is not None or can_read_message(
                stream, None, 0, self.caller):
            return None
        earlier = self.history.get(stream_id)
        pairs = (earlier.received_ranges if earlier is not None else None) or [0, -1]
        return min(pairs[0::2]), max(pairs[1::2])

    def subscribed(self, message: Message) -> bool:
        return self.channels.get(int(message.stream_id), (None, None))[1] is not None


def check_message_access(caller: Principal, message: Message, *, modifying: bool = False
                         ) -> AccessedMessage:
    """Raises unless the caller may read (and, if `modifying`, act on) the message."""
    access = Access(caller)
    if not access.may_read(message):
        raise invalid_message()
    if message.type == "private":
        return AccessedMessage(message, None, None)
    stream, subscription = access.channel(int(message.stream_id))
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
