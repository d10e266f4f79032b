"""recent_private_conversations in POST /register: the caller's latest direct conversations."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.models.channels import user_key
from chalicelib.models.conversations import RecentConversation

MAX_RECENT_CONVERSATIONS = 1000   # as the reference


class RecentConversationEntry(TypedDict):
    max_message_id: int
    user_ids: list[int]      # the other participants, sorted; empty for one's own DMs


def recent_private_conversations_state(realm_id: int, user_id: int
                                       ) -> list[RecentConversationEntry]:
    """Most recent first: one Query of the user's conversation items (the fan-out keeps
    each one's latest message id)."""
    items = sorted(RecentConversation.query(user_key(realm_id, user_id)),
                   key=lambda item: int(item.max_message_id), reverse=True)
    return [{"max_message_id": int(item.max_message_id),
             "user_ids": [int(u) for u in item.conversation.split(",") if int(u) != user_id]}
            for item in items[:MAX_RECENT_CONVERSATIONS]]
