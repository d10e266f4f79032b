"""Who hears of a change to messages (an edit, a reaction, a deletion): the messages'
readers, and those a channel move takes them from.

A channel whose history is public to subscribers needs no reads: its subscribers (and,
if public, the queues that follow every public channel) hear of it. In a channel with
protected history only subscribers who can read the messages do, and a move to another
channel tells the users who lose access to delete the messages, as the reference does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from chalicelib.delivery.outbox import Audience, to_channel, to_channels, to_users
from chalicelib.models.channels import Stream, Subscription, stream_key
from chalicelib.models.messages import Message
from chalicelib.models.users import User
from chalicelib.rules.channel_access import readable_unsubscribed


@dataclass
class _Readers:
    """The subscribers of a channel with the first message id each may read."""

    stream: Stream
    first_visible: dict[int, int] = field(default_factory=dict)

    @classmethod
    def load(cls, realm_id: int, stream: Stream) -> _Readers:
        return cls(stream, {s.user_id: int(s.first_visible_message_id or 0)
                            for s in Subscription.by_stream.query(
                                stream_key(realm_id, stream.stream_id)) if s.active})

    def of(self, newest_id: int) -> set[int]:
        """Subscribers who can read at least one message up to newest_id."""
        if self.stream.history_public_to_subscribers:
            return set(self.first_visible)
        return {u for u, first in self.first_visible.items() if first <= newest_id}


class EditAudience:
    """Computes, per written batch, who gets its update_message and delete_message events."""

    def __init__(self, realm_id: int, target: Message, old_stream: Stream | None,
                 new_stream: Stream | None) -> None:
        self.realm_id, self.target = realm_id, target
        self.old, self.new = old_stream, new_stream
        self._old_readers: _Readers | None = None
        self._new_readers: _Readers | None = None
        self._roles: dict[int, int] = {}

    @property
    def channel_changed(self) -> bool:
        return self.old is not None and self.new is not None and \
            self.old.stream_id != self.new.stream_id

    def for_batch(self, message_ids: list[int], content_changed: bool
                  ) -> tuple[Audience, list[int]]:
        """(update_message audience, users who lose access) for a batch of messages.

        A content change reaches only readers of the edited message itself; a move
        reaches readers of any message of the batch.
        """
        target, old = self.target, self.old
        if target.type == "private" or old is None:
            return to_users(sorted(target.recipient_ids)), []
        newest = target.message_id if content_changed else max(message_ids)
        if not self.channel_changed:
            if old.history_public_to_subscribers:
                return to_channel(old.stream_id, public=not old.invite_only), []
            return to_users(sorted(self._readers_of_old().of(newest))), []
        return self._channel_move(newest)

    def _channel_move(self, newest: int) -> tuple[Audience, list[int]]:
        assert self.new is not None  # nosec B101 # type narrowing (set above)
        before = self._readers_of_old().of(newest)
        after = self._readers_of_new().of(newest)
        # Public with shared history: who may read it unsubscribed keeps reading it.
        open_to_all = not self.new.invite_only and self.new.history_public_to_subscribers
        keep = before & after
        if open_to_all:
            keep |= self._readers_unsubscribed(before - after)
        losing = sorted(before - keep)
        if open_to_all:   # the channel's audience, plus readers who keep it from the old one
            return to_channels([self.new.stream_id], users=sorted(keep - after)), losing
        return to_channels([], users=sorted(after | keep)), losing

    def _readers_of_old(self) -> _Readers:
        assert self.old is not None  # nosec B101 # type narrowing (set above)
        if self._old_readers is None:
            self._old_readers = _Readers.load(self.realm_id, self.old)
        return self._old_readers

    def _readers_of_new(self) -> _Readers:
        assert self.new is not None  # nosec B101 # type narrowing (set above)
        if self._new_readers is None:
            self._new_readers = _Readers.load(self.realm_id, self.new)
        return self._new_readers

    def _readers_unsubscribed(self, user_ids: set[int]) -> set[int]:
        """Those of these users whose role reads the new channel without a subscription
        (their roles read in one BatchGetItem)."""
        assert self.new is not None  # nosec B101 # type narrowing (a channel move)
        unknown = [u for u in user_ids if u not in self._roles]
        if unknown:
            self._roles.update((u.user_id, int(u.role)) for u in User.batch_get(
                [(self.realm_id, u) for u in unknown]))
        return {u for u in user_ids if u in self._roles
                and readable_unsubscribed(self._roles[u], self.new)}


def readers_audience(realm_id: int, messages: list[Message], stream: Stream | None,
                     actor_id: int) -> Audience:
    """Everyone who can read any of these messages of one conversation, and the actor
    (who may act on a public channel's message without being subscribed).

    A channel with shared history needs no reads here: the fan-out resolves the
    channel's subscribers (and, if public, the queues that follow every public channel).
    """
    sample = messages[0]
    if sample.type == "private" or stream is None:
        return to_users(sorted(set(sample.recipient_ids) | {actor_id}))
    if stream.history_public_to_subscribers:
        return to_channels([stream.stream_id], users=[actor_id])
    readers = _Readers.load(realm_id, stream).of(max(m.message_id for m in messages))
    return to_users(sorted(readers | {actor_id}))
