"""The one rule for a recipient's flags on a new message: pure, no reads.

The send path asks it while the message is in flight (reads/pending.py: what a reader
shows before the fan-out has written the markers) and the fan-out's recipient step asks
it to write them (fanout/recipients.py), so both agree by construction. The callers read
what it takes (subscriptions, mutes, alert words) in their own batches.
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib.delivery.types import MentionFacts
from chalicelib.models.messages import Message

WILDCARD_FLAGS = {"stream": "stream_wildcard_mentioned", "topic": "topic_wildcard_mentioned"}


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
