"""Each user's direct-message conversations and their latest message, for registration."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


def conversation_key(participant_ids: list[int] | set[int]) -> str:
    """Every participant (the user included), sorted: never empty, unlike "the others"."""
    return ",".join(str(user_id) for user_id in sorted(set(participant_ids)))


class RecentConversation(BaseModel):
    """One item per (user, direct conversation); the fan-out raises `max_message_id`
    with a conditional update, so late or repeated deliveries never lower it."""

    Meta = table_meta("recent_conversations")
    user_key = UnicodeAttribute(hash_key=True)       # "<realm_id>#<user_id>"
    conversation = UnicodeAttribute(range_key=True)  # conversation_key(participants)
    max_message_id = IntegerAttribute()
