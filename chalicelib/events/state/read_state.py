"""POST /register's read state: the newest message id (`message`), the unread messages
(`message` with `update_message_flags`), the starred messages (`starred_messages`) and
the recent direct-message conversations (`recent_private_conversations`).

PLACEHOLDERS (issue 12, read state): unread_msgs_state, starred_messages_state and
recent_private_conversations_state return correctly typed empty values until message
flags exist; each is the one place to replace.
"""
from __future__ import annotations

from typing import TypedDict

from chalicelib.events.state.context import StateContext
from chalicelib.models.realms import Counter


class UnreadDirectMessages(TypedDict):
    other_user_id: int
    sender_id: int                  # deprecated copy of other_user_id
    unread_message_ids: list[int]


class UnreadChannelTopic(TypedDict):
    stream_id: int
    topic: str
    unread_message_ids: list[int]


class UnreadGroupDirectMessages(TypedDict):
    user_ids_string: str            # the participants' ids, comma-separated, ascending
    unread_message_ids: list[int]


class UnreadMessages(TypedDict):
    count: int
    pms: list[UnreadDirectMessages]
    streams: list[UnreadChannelTopic]
    huddles: list[UnreadGroupDirectMessages]
    mentions: list[int]
    old_unreads_missing: bool


class RecentPrivateConversation(TypedDict):
    max_message_id: int
    user_ids: list[int]             # the other participants, ascending


class MessageState(TypedDict, total=False):
    """Present when `message` is among the fetch types."""

    max_message_id: int             # deprecated by the reference, still sent


class UnreadMessagesState(TypedDict, total=False):
    """Present when both `message` and `update_message_flags` are fetch types."""

    unread_msgs: UnreadMessages


class StarredMessagesState(TypedDict, total=False):
    """Present when `starred_messages` is among the fetch types."""

    starred_messages: list[int]


class RecentPrivateConversationsState(TypedDict, total=False):
    """Present when `recent_private_conversations` is among the fetch types."""

    recent_private_conversations: list[RecentPrivateConversation]


def message_state(ctx: StateContext) -> MessageState:
    counter = Counter.get_or_none(f"realm:{ctx.caller.realm_id}")
    return {"max_message_id": int(counter.message or -1) if counter else -1}


def unread_msgs_state(ctx: StateContext) -> UnreadMessagesState:
    # PLACEHOLDER (issue 12, read state): nothing is unread until flags exist.
    return {"unread_msgs": {"count": 0, "pms": [], "streams": [], "huddles": [],
                            "mentions": [], "old_unreads_missing": False}}


def starred_messages_state(ctx: StateContext) -> StarredMessagesState:
    # PLACEHOLDER (issue 12, read state): nothing is starred until flags exist.
    return {"starred_messages": []}


def recent_private_conversations_state(ctx: StateContext
                                       ) -> RecentPrivateConversationsState:
    # PLACEHOLDER (issue 12, read state): conversations are not indexed yet.
    return {"recent_private_conversations": []}
