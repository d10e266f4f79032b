"""POST /register's read state: the newest message id (`message`), the unread messages
(`message` with `update_message_flags`), the starred messages (`starred_messages`) and
the recent direct-message conversations (`recent_private_conversations`). The state is
built by actions/read_state/reads/unread.py and actions/messages/reads/conversations.py."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.messages.reads.conversations import RecentConversationEntry
from chalicelib.actions.messages.reads.conversations import (
    recent_private_conversations_state as recent_conversations,
)
from chalicelib.actions.read_state.reads.unread import UnreadMessagesState
from chalicelib.actions.read_state.reads.unread import (
    starred_messages_state as starred_message_ids,
)
from chalicelib.actions.read_state.reads.unread import (
    unread_msgs_state as unread_messages,
)
from chalicelib.actions.users.reads.newest_received import newest_received_id
from chalicelib.models.realms import empty_topic_display_name
from chalicelib.registration.state.context import StateContext


class MessageState(TypedDict, total=False):
    """Present when `message` is among the fetch types."""

    max_message_id: int             # deprecated by the reference, still sent


class UnreadMsgsState(TypedDict, total=False):
    """Present when both `message` and `update_message_flags` are fetch types."""

    unread_msgs: UnreadMessagesState


class StarredMessagesState(TypedDict, total=False):
    """Present when `starred_messages` is among the fetch types."""

    starred_messages: list[int]


class RecentPrivateConversationsState(TypedDict, total=False):
    """Present when `recent_private_conversations` is among the fetch types."""

    recent_private_conversations: list[RecentConversationEntry]


def message_state(ctx: StateContext) -> MessageState:
    """The newest message the caller received (actions/users/reads/newest_received.py)."""
    return {"max_message_id": newest_received_id(ctx.caller, ctx.subscriptions)}


def unread_msgs_state(ctx: StateContext) -> UnreadMsgsState:
    display = None if ctx.capable("empty_topic_name") else empty_topic_display_name(ctx.realm)
    return {"unread_msgs": unread_messages(ctx.caller.realm_id, ctx.caller.user_id, display,
                                           subscriptions=ctx.subscriptions,
                                           topics=ctx.user_topics)}


def starred_messages_state(ctx: StateContext) -> StarredMessagesState:
    return {"starred_messages": starred_message_ids(ctx.caller.realm_id, ctx.caller.user_id)}


def recent_private_conversations_state(ctx: StateContext
                                       ) -> RecentPrivateConversationsState:
    return {"recent_private_conversations": recent_conversations(ctx.caller.realm_id,
                                                                 ctx.caller.user_id)}
