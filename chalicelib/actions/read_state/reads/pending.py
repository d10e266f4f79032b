"""Read state of messages the fan-out has not reached yet (models/pending_deliveries.py),
and the one rule for a recipient's flags on a new message (recipient_flags), which the
fan-out writes by; the writes are in actions/read_state/pending.py.

A message with a `PendingDelivery` is unread for each of its recipients (`unread_by_default`)
who has not marked it read (`read_by`), whether or not their marker exists yet; for
anyone else (its sender, as the fan-out decides, or a user who muted the sender) the
marker alone decides, as for any delivered message. Every reader asks here first and
reads markers after: once a pending item is gone its markers are final, so that order
never shows a message read that is not.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from chalicelib.delivery.types import MentionFacts
from chalicelib.models.alert_words import AlertWords
from chalicelib.models.channels import Subscription, user_key
from chalicelib.models.conversations import conversation_key
from chalicelib.models.message_flags import (
    STREAM_WILDCARD_BIT,
    TOPIC_WILDCARD_BIT,
    UnreadMessage,
    mention_bits,
)
from chalicelib.models.messages import Message, topic_key
from chalicelib.models.muted_users import muted_user_ids
from chalicelib.models.pending_deliveries import PendingDelivery

MESSAGES_PER_READ = 100
WILDCARD_BITS = {"stream": STREAM_WILDCARD_BIT, "topic": TOPIC_WILDCARD_BIT}
WILDCARD_FLAGS = {"stream": "stream_wildcard_mentioned", "topic": "topic_wildcard_mentioned"}


# ---- the one rule for a recipient's flags on a new message ----------------------------
# Pure, no reads: the fan-out's recipient step asks it to write the flags
# (fanout/recipients.py) and the readers below ask it while the message is in flight,
# so both agree by construction; each caller reads what it takes (subscriptions, mutes,
# alert words) in its own batches.

def mention_facts(message: Message) -> MentionFacts:
    """Who a message's mentions flag: the mentioned users (and groups' members), and its
    wildcard ("stream", "topic" or None), which flags every recipient."""
    return {"users": sorted(message.flagged_user_ids or ()),
            "wildcard": message.wildcard_mention}


@dataclass(frozen=True)
class NewMessage:
    """What a new message's flags follow from: its sender, whom its mentions flag (as
    MentionFacts tell), and whether the sender has read it (False for a message sent on
    behalf of someone else)."""

    sender_id: int
    mentioned: frozenset[int]
    wildcard: str | None
    read_by_sender: bool = True

    @classmethod
    def told(cls, sender_id: int, mentions: MentionFacts | None,
             read_by_sender: bool) -> NewMessage:
        """As the send told the fan-out (EventFacts)."""
        if mentions is None:
            return cls(sender_id, frozenset(), None, read_by_sender)
        return cls(sender_id, frozenset(mentions["users"]), mentions["wildcard"],
                   read_by_sender)

    @classmethod
    def of(cls, message: Message, read_by_sender: bool) -> NewMessage:
        """As stored (a message in flight)."""
        return cls.told(int(message.sender_id), mention_facts(message), read_by_sender)


def mention_flags(message: NewMessage, user_id: int, *, receives: bool) -> set[str]:
    """`mentioned` for a mentioned user; the wildcard's flag for every user who receives
    the message (a channel's subscriber, a direct message's participant)."""
    flags = {"mentioned"} if user_id in message.mentioned else set()
    wildcard = WILDCARD_FLAGS.get(message.wildcard or "")
    if wildcard is not None and receives:
        flags.add(wildcard)
    return flags


def arrives_read(message: NewMessage, user_id: int, *, receives: bool,
                 muted_sender: bool) -> bool:
    """Read from the start: the sender's own message (unless sent on their behalf to a
    conversation they receive), and, as the reference, a muted sender's messages."""
    if user_id == message.sender_id:
        return message.read_by_sender or not receives
    return muted_sender


def recipient_flags(message: NewMessage, user_id: int, *, receives: bool,
                    muted_sender: bool, alert_word: bool) -> set[str]:
    """A user's flags on a new message: `receives` (they are a recipient), `muted_sender`
    (they muted its sender), `alert_word` (its Markdown has one of their alert words;
    never flagged on the sender's own message)."""
    flags = mention_flags(message, user_id, receives=receives)
    if arrives_read(message, user_id, receives=receives, muted_sender=muted_sender):
        flags.add("read")
    if alert_word and user_id != message.sender_id:
        flags.add("has_alert_word")
    return flags


# ---- messages in flight ---------------------------------------------------------------


def pending_record(message: Message, read_by_sender: bool) -> PendingDelivery:
    """What a send writes beside its message (fanout/recipients.py deletes it)."""
    return PendingDelivery(message.realm_id, message.message_id,
                           read_by_sender=read_by_sender)


def pending_between(realm_id: int, low: int | None = None, high: int | None = None
                    ) -> dict[int, PendingDelivery]:
    """The realm's messages in flight (with ids in [low, high]): one consistent Query,
    of a partition that holds only what the fan-out has not reached (usually nothing)."""
    condition = None
    if low is not None and high is not None:
        condition = PendingDelivery.message_id.between(low, high)
    return {int(p.message_id): p for p in PendingDelivery.query(
        realm_id, condition, consistent_read=True)}


def pending_of(realm_id: int, message_ids: Iterable[int]) -> dict[int, PendingDelivery]:
    ids = set(message_ids)
    if not ids:
        return {}
    found = pending_between(realm_id, min(ids), max(ids))
    return {i: p for i, p in found.items() if i in ids}


def load(realm_id: int, message_ids: Iterable[int]) -> dict[int, Message]:
    ids = sorted(set(message_ids))
    found: dict[int, Message] = {}
    for start in range(0, len(ids), MESSAGES_PER_READ):
        found.update((m.message_id, m) for m in Message.batch_get(
            [(realm_id, i) for i in ids[start:start + MESSAGES_PER_READ]]))
    return found


class Recipient:
    """One user as a reader of messages in flight: their subscriptions and mutes, read
    once, and only when a message in flight needs them."""

    def __init__(self, realm_id: int, user_id: int,
                 subscriptions: Iterable[Subscription] | None = None) -> None:
        self.realm_id, self.user_id = realm_id, user_id
        self._subscriptions: dict[int, Subscription | None] = (
            {} if subscriptions is None else {s.stream_id: s for s in subscriptions})
        self._complete = subscriptions is not None
        self._muted: set[int] | None = None
        self._words: list[str] | None = None

    def _subscription(self, stream_id: int) -> Subscription | None:
        if stream_id not in self._subscriptions and not self._complete:
            self._subscriptions[stream_id] = Subscription.get_or_none(
                user_key(self.realm_id, self.user_id), stream_id)
        return self._subscriptions.get(stream_id)

    def muted(self, sender_id: int) -> bool:
        if self._muted is None:
            self._muted = set(muted_user_ids(self.realm_id, self.user_id))
        return sender_id in self._muted

    def receives(self, message: Message) -> bool:
        """Whether the fan-out gives the user this message (as fanout/recipients.py)."""
        if message.type == "stream":
            sub = self._subscription(int(message.stream_id))
            return sub is not None and sub.active and \
                sub.first_visible_message_id <= message.message_id
        return self.user_id in message.recipient_ids

    def unread_by_default(self, message: Message, pending: PendingDelivery) -> bool:
        """Whether the fan-out writes this user's marker (whoever marks it read first):
        a recipient for whom the message does not arrive read (recipient_flags above)."""
        if not self.receives(message):
            return False
        sender_id = int(message.sender_id)
        muted = sender_id != self.user_id and self.muted(sender_id)
        return not arrives_read(NewMessage.of(message, bool(pending.read_by_sender)),
                                self.user_id, receives=True, muted_sender=muted)

    def unread(self, message: Message, pending: PendingDelivery) -> bool:
        return self.unread_by_default(message, pending) and \
            self.user_id not in (pending.read_by or ())

    def mention_bits(self, message: Message) -> int:
        """The mention bits of the marker the fan-out will write (recipient_flags above)."""
        # Whether the user receives it matters for a wildcard alone: read only then.
        receives = bool(message.wildcard_mention) and self.receives(message)
        return mention_bits(mention_flags(NewMessage.of(message, True), self.user_id,
                                          receives=receives))

    def arrival_flags(self, message: Message, pending: PendingDelivery) -> set[str] | None:
        """The flags the fan-out will write for the user (recipient_flags above: the rule
        it asks too), or None when it writes none (neither a recipient nor the sender)."""
        receives = self.receives(message)
        sender_id = int(message.sender_id)
        if not receives and sender_id != self.user_id:
            return None
        others = sender_id != self.user_id   # mutes and alert words: never one's own
        words = self._alert_words() if others else []
        # Loaded here: RE2 is not for the fan-out's cold start, which imports this module.
        from chalicelib.rules.patterns import has_any_word

        return recipient_flags(
            NewMessage.of(message, bool(pending.read_by_sender)), self.user_id,
            receives=receives, muted_sender=others and self.muted(sender_id),
            alert_word=bool(words) and has_any_word(words, message.content or ""))

    def _alert_words(self) -> list[str]:
        if self._words is None:
            item = AlertWords.get_or_none(self.realm_id, self.user_id)
            self._words = list(item.words) if item is not None and item.words else []
        return self._words


def unread_in_flight(recipient: Recipient, where: Callable[[Message], bool] | None = None,
                     message_ids: Iterable[int] | None = None
                     ) -> list[tuple[Message, PendingDelivery]]:
    """The messages in flight that are unread for the user (and match `where`), with
    their pending items; those of `message_ids` only, if given."""
    if message_ids is None:
        pending = pending_between(recipient.realm_id)
    else:
        pending = pending_of(recipient.realm_id, message_ids)
    if not pending:
        return []
    messages = load(recipient.realm_id, pending)
    return [(messages[i], p) for i, p in sorted(pending.items()) if i in messages
            and (where is None or where(messages[i])) and recipient.unread(messages[i], p)]


def new_marker(realm_id: int, user_id: int, message: Message, mentions: int) -> UnreadMessage:
    """The unread marker of a message for one of its recipients (written by the fan-out,
    or shown for a message in flight)."""
    marker = UnreadMessage(user_key(realm_id, user_id), message.message_id, user_id=user_id,
                           sender_id=message.sender_id, mentions=mentions)
    if message.type == "stream":
        marker.stream_id = message.stream_id
        marker.topic = message.topic
        marker.topic_key = topic_key(realm_id, int(message.stream_id), message.topic)
    else:
        marker.dm_user_ids = conversation_key(message.recipient_ids)
    return marker
