"""Per-user message state: unread markers, and the flags that outlive reading.

Read state is the largest data of a chat server, so it is stored by exception: a
message is read for a user unless an `UnreadMessage` marker says otherwise, and has no
flags beyond those that follow from the message unless a `MessageFlag` row lists them.

- `UnreadMessage` (one per unread message per recipient) is written by the fan-out when
  a message is delivered and deleted when it is read. It carries what `unread_msgs`
  needs (channel and topic, or the direct conversation, the sender and the mention
  bits), so the registration state is one Query of the user's markers. A sparse index by
  topic (`by_topic`, channel messages only) lets a topic be marked read and a moved
  topic's markers be found without reading anyone else's.
- `MessageFlag` (one per flagged message per user) holds the lasting flags: mentions
  and alert words (written by the fan-out), starred and collapsed (written by the user).
  Starred rows carry `starred_key`, the key of a sparse index listing a user's stars;
  rows of channel messages carry `topic_key`, so moves and deletions find them.
  A message the user did not receive (a channel's history) gets a row with the flag
  `historical` when they star it, collapse it, mark it unread or react to it, as the
  reference creates a historical row: from then on it counts among the messages they
  received. Such rows carry `historical_key`, the key of a sparse index listing them.
"""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute, UnicodeSetAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, KeysOnlyProjection

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta

# Flags a user may change with POST /messages/flags.
EDITABLE_FLAGS = ("read", "starred", "collapsed")
# Flags that follow from the message (mentions, alert words): the server sets them.
MENTION_FLAGS = ("mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned")
DERIVED_FLAGS = (*MENTION_FLAGS, "has_alert_word", "historical", "wildcard_mentioned")
ALL_FLAGS = (*EDITABLE_FLAGS, *DERIVED_FLAGS)

# Bits of UnreadMessage.mentions, so unread_msgs lists mentions without reading rows.
MENTIONED_BIT, STREAM_WILDCARD_BIT, TOPIC_WILDCARD_BIT = 1, 2, 4
MENTION_BITS = {"mentioned": MENTIONED_BIT, "stream_wildcard_mentioned": STREAM_WILDCARD_BIT,
                "topic_wildcard_mentioned": TOPIC_WILDCARD_BIT}


def mention_bits(flags: set[str] | list[str]) -> int:
    return sum(bit for name, bit in MENTION_BITS.items() if name in flags)


class UnreadByTopic(GlobalSecondaryIndex["UnreadMessage"]):
    """Unread channel markers by topic: a user's in one topic, or everyone's in a topic."""

    class Meta:
        index_name = "by_topic"
        projection = AllProjection()

    topic_key = UnicodeAttribute(hash_key=True)    # models.messages.topic_key(...)
    user_id = IntegerAttribute(range_key=True)


class UnreadMessage(BaseModel):
    Meta = table_meta("unread_messages")
    user_key = UnicodeAttribute(hash_key=True)     # "<realm_id>#<user_id>"
    message_id = IntegerAttribute(range_key=True)
    user_id = IntegerAttribute()
    sender_id = IntegerAttribute()
    mentions = IntegerAttribute(default=0)          # MENTIONED_BIT | ... for unread_msgs
    # Channel messages: where the message is now (a move rewrites the marker).
    stream_id = IntegerAttribute(null=True)
    topic = UnicodeAttribute(null=True)
    topic_key = UnicodeAttribute(null=True)
    # Direct messages: every participant, sorted and comma-separated ("1,5,9").
    dm_user_ids = UnicodeAttribute(null=True)
    by_topic = UnreadByTopic()

    @property
    def participant_ids(self) -> list[int]:
        return [int(part) for part in (self.dm_user_ids or "").split(",") if part]


class StarredByUser(GlobalSecondaryIndex["MessageFlag"]):
    class Meta:
        index_name = "starred"
        projection = KeysOnlyProjection()

    starred_key = UnicodeAttribute(hash_key=True)  # the row's user_key, only when starred
    message_id = IntegerAttribute(range_key=True)


class FlagsByTopic(GlobalSecondaryIndex["MessageFlag"]):
    """Channel messages' flag rows by topic: everyone's rows for the messages a move or a
    deletion touches, without reading any user's others."""

    class Meta:
        index_name = "by_topic"
        projection = KeysOnlyProjection()

    topic_key = UnicodeAttribute(hash_key=True)
    message_id = IntegerAttribute(range_key=True)


class HistoricalByUser(GlobalSecondaryIndex["MessageFlag"]):
    """A user's historical rows (messages they did not receive but gave a flag or a
    reaction to): the received messages a narrow reads beside their subscriptions'."""

    class Meta:
        index_name = "historical"
        projection = KeysOnlyProjection()

    historical_key = UnicodeAttribute(hash_key=True)  # the row's user_key, when historical
    message_id = IntegerAttribute(range_key=True)


class MessageFlag(BaseModel):
    Meta = table_meta("message_flags")
    user_key = UnicodeAttribute(hash_key=True)     # "<realm_id>#<user_id>"
    message_id = IntegerAttribute(range_key=True)
    flags = UnicodeSetAttribute(null=True)         # e.g. {"starred", "mentioned"}
    starred_key = UnicodeAttribute(null=True)
    topic_key = UnicodeAttribute(null=True)        # channel messages: where it is now
    historical_key = UnicodeAttribute(null=True)   # the user_key, on historical rows
    starred = StarredByUser()
    by_topic = FlagsByTopic()
    historical = HistoricalByUser()
