"""Channel topics (for the topic list) and each user's per-topic visibility (muting)."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


def topic_sort_key(topic: str) -> str:
    """Topics are case-insensitive: one entry per lower-cased name."""
    return topic.lower()


def topic_item_key(topic: str) -> str:
    """The topic list's range key. DynamoDB refuses an empty string in a key attribute,
    so every key carries a prefix and the empty topic's key is the prefix alone (which
    also sorts it first)."""
    return "=" + topic_sort_key(topic)


class Topic(BaseModel):
    """One item per topic of a channel: its latest message, kept up to date by send and move.

    Listing a channel's topics is one Query on the channel; the list is as long as the
    answer, never the channel's message count.
    """

    Meta = table_meta("topics")
    stream_key = UnicodeAttribute(hash_key=True)     # "<realm_id>#<stream_id>"
    topic_key = UnicodeAttribute(range_key=True)     # topic_item_key(name)
    name = UnicodeAttribute()                        # as written in the latest message
    max_id = IntegerAttribute()


# Topic visibility policies (POST /user_topics); INHERIT means no item.
INHERIT, MUTED, UNMUTED, FOLLOWED = 0, 1, 2, 3


def user_topic_key(stream_id: int, topic: str) -> str:
    return f"{stream_id}#{topic_sort_key(topic)}"


class UserTopic(BaseModel):
    """A user's visibility policy for one topic (muted, unmuted, followed)."""

    Meta = table_meta("user_topics")
    user_key = UnicodeAttribute(hash_key=True)        # "<realm_id>#<user_id>"
    topic_key = UnicodeAttribute(range_key=True)      # user_topic_key(stream_id, topic)
    stream_id = IntegerAttribute()
    topic_name = UnicodeAttribute()
    visibility_policy = IntegerAttribute()
    last_updated = IntegerAttribute()
