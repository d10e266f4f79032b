"""Reading messages with permission: whether a caller may read each of many (`Access`),
and one message with its channel and the caller's subscription.

Missing and forbidden look the same ("Invalid message(s)"), as the reference answers.
A message of a channel the caller left stays readable if it came to them while they were
subscribed (Subscription.received_ranges), as the reference keeps received messages.
Changes that act on a message (reactions, deletion) also refuse messages of archived
channels, which stay readable. Who may edit a message's content now is checked here too
(editing and edit typing notifications ask).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream, Subscription, get_stream, user_key
from chalicelib.models.messages import Message
from chalicelib.models.realms import Realm, get_realm, realm_setting
from chalicelib.rules.channel_access import readable_unsubscribed
from chalicelib.rules.timeutil import now_seconds


def invalid_message() -> ApiError:
    return ApiError("Message not found, or you cannot see it.")


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


def can_read_message(stream: Stream, subscription: Subscription | None, message_id: int,
                     caller: Principal) -> bool:
    if subscription is None:
        return readable_unsubscribed(caller.role, stream)
    if not stream.history_public_to_subscribers:
        return message_id >= subscription.first_visible_message_id
    return True


# Grace period after the content edit limit, for a user who started editing in time.
EDIT_LIMIT_BUFFER_SECONDS = 20
NO_PERMISSION = "You are not allowed to edit this message"


def access_message_to_edit(caller: Principal, message_id: int) -> Message:
    """A message whose content the caller may edit now (for edit typing notifications)."""
    message = access_message(caller, message_id).message
    check_content_edit(caller, get_realm(caller.realm_id), message, now_seconds())
    return message


def check_content_edit(caller: Principal, realm: Realm, message: Message, now: int) -> None:
    if not realm_setting(realm, "allow_message_editing"):
        raise ApiError("Message editing is turned off in this organization")
    if message.sender_id != caller.user_id:
        raise ApiError(NO_PERMISSION)
    limit = realm_setting(realm, "message_content_edit_limit_seconds")
    if limit is not None and now - message.date_sent > int(limit) + EDIT_LIMIT_BUFFER_SECONDS:
        raise ApiError("This message is too old for you to edit")
