"""Messages, with indexes for the channel, topic and direct-conversation narrows."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    MapAttribute,
    UnicodeAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex

from chalicelib.models.attributes import IntegerAttribute, IntegerSetAttribute, list_of
from chalicelib.models.base import BaseModel, table_meta


def _index(name: str, hash_attr: str) -> type[GlobalSecondaryIndex[Message]]:
    meta = type("Meta", (), {"index_name": name, "projection": AllProjection()})
    attrs = {"Meta": meta, hash_attr: UnicodeAttribute(hash_key=True),
             "message_id": IntegerAttribute(range_key=True)}
    return type(f"MessagesBy_{name}", (GlobalSecondaryIndex,), attrs)


def topic_key(realm_id: int, stream_id: int, topic: str) -> str:
    return f"{realm_id}#{stream_id}#{topic.lower()}"


def message_place(realm_id: int, message: Message) -> str | None:
    """The topic a channel message is in, as the flag rows' and markers' topic index
    keys it (None for direct messages)."""
    if message.type != "stream":
        return None
    return topic_key(realm_id, int(message.stream_id), message.topic)


def sender_key(realm_id: int, sender_id: int) -> str:
    """The by_sender index's key: a realm's messages from one sender."""
    return f"{realm_id}#{sender_id}"


def dm_key(realm_id: int, user_ids: Iterable[int]) -> str:
    return f"{realm_id}#" + ",".join(str(u) for u in sorted(set(user_ids)))


def reaction_key(reaction_type: str, emoji_code: str, user_id: int) -> str:
    """A reaction's key in the message's reactions map: one per (emoji, user)."""
    return f"{reaction_type}:{emoji_code}:{user_id}"


def parse_reaction_key(key: str) -> tuple[str, str, int]:
    """(reaction_type, emoji_code, user_id); emoji codes never contain ':'."""
    reaction_type, emoji_code, user_id = key.split(":")
    return reaction_type, emoji_code, int(user_id)


class Message(BaseModel):
    Meta = table_meta("messages")
    realm_id = IntegerAttribute(hash_key=True)
    message_id = IntegerAttribute(range_key=True)
    type = UnicodeAttribute()                      # "stream" or "private"
    sender_id = IntegerAttribute()
    stream_id = IntegerAttribute(null=True)
    stream_key = UnicodeAttribute(null=True)       # channel messages only
    topic = UnicodeAttribute(default="")
    topic_key = UnicodeAttribute(null=True)        # channel messages only
    dm_key = UnicodeAttribute(null=True)           # direct messages only
    # sender_key(realm_id, sender_id): every message since the by_sender index exists
    # (older ones: `admin reindex`).
    sender_key = UnicodeAttribute(null=True)
    recipient_ids = list_of(IntegerAttribute, default=list)  # direct: every participant
    recipient_id = IntegerAttribute()
    content = UnicodeAttribute()
    rendered_content = UnicodeAttribute()
    content_sha256 = UnicodeAttribute()
    date_sent = IntegerAttribute()
    client = UnicodeAttribute(default="API")
    is_me_message = BooleanAttribute(default=False)
    # Mentions written aloud (a silent "@_" mention is rendered, never flagged).
    mentioned_user_ids = IntegerSetAttribute(null=True)
    mentioned_group_ids = IntegerSetAttribute(null=True)
    # Who gets the `mentioned` flag: the users above and the groups' members when the
    # message was written, kept so an edit knows whose flags it changes.
    flagged_user_ids = IntegerSetAttribute(null=True)
    wildcard_mention = UnicodeAttribute(null=True)  # "stream" or "topic"
    last_edit_timestamp = IntegerAttribute(null=True)
    last_moved_timestamp = IntegerAttribute(null=True)
    edit_history = JSONAttribute(null=True)
    # {reaction_key(...): {"emoji_name": str, "at": ms}}: on the message, so a page of
    # messages reads its reactions with it, and one conditional write adds one. Absent
    # until the first reaction.
    reactions: MapAttribute[str, Any] = MapAttribute(null=True)
    version = IntegerAttribute(default=0)
    by_stream = _index("by_stream", "stream_key")()
    by_topic = _index("by_topic", "topic_key")()
    by_dm = _index("by_dm", "dm_key")()
    by_sender = _index("by_sender", "sender_key")()

    def reaction_map(self) -> dict[str, dict[str, Any]]:
        """The stored reactions, {"type:code:user_id": {"emoji_name", "at"}}; {} if none."""
        stored: dict[str, dict[str, Any]] = (self.reactions.as_dict()
                                             if self.reactions is not None else {})
        return stored
