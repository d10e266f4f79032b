"""POST /register's per-user lists: alert words, muted users, statuses, topic visibility
(and the deprecated muted_topics), saved snippets and drafts."""
from __future__ import annotations

from typing import Any, TypedDict

from chalicelib.actions.channels.reads.user_topics import muted_topic_triples, user_topic_dict
from chalicelib.actions.messages.reads.drafts import DraftDict
from chalicelib.actions.messages.reads.drafts import drafts_state as user_drafts
from chalicelib.actions.messages.reads.reminders import ReminderDict
from chalicelib.actions.messages.reads.reminders import reminders_state as user_reminders
from chalicelib.actions.messages.reads.scheduled_messages import ScheduledMessageDict
from chalicelib.actions.messages.reads.scheduled_messages import (
    scheduled_messages_state as user_scheduled_messages,
)
from chalicelib.actions.users.reads.muted_users import MutedUser, muted_users_list
from chalicelib.actions.users.reads.saved_snippets import SavedSnippetDict
from chalicelib.actions.users.reads.saved_snippets import saved_snippets_state as user_snippets
from chalicelib.actions.users.reads.status import UserStatusDict
from chalicelib.actions.users.reads.status import user_status_state as visible_statuses
from chalicelib.models.realms import empty_topic_display_name
from chalicelib.registration.state.context import StateContext


class AlertWordsState(TypedDict, total=False):
    """Present when `alert_words` is among the fetch types."""

    alert_words: list[str]


class MutedUsersState(TypedDict, total=False):
    """Present when `muted_users` is among the fetch types."""

    muted_users: list[MutedUser]


class UserStatusState(TypedDict, total=False):
    """Present when `user_status` is among the fetch types: by user id, what is set."""

    user_status: dict[str, UserStatusDict]


class UserTopicState(TypedDict, total=False):
    """Present when `user_topic` is among the fetch types."""

    user_topics: list[dict[str, Any]]


class MutedTopicsState(TypedDict, total=False):
    """Present when `muted_topics` is a fetch type and `user_topic` is not: the
    deprecated [channel name, topic, timestamp] triples."""

    muted_topics: list[list[Any]]


class SavedSnippetsState(TypedDict, total=False):
    """Present when `saved_snippets` is among the fetch types."""

    saved_snippets: list[SavedSnippetDict]


class DraftsState(TypedDict, total=False):
    """Present when `drafts` is among the fetch types."""

    drafts: list[DraftDict]


def alert_words_state(ctx: StateContext) -> AlertWordsState:
    return {"alert_words": [str(w) for w in ctx.me.alert_words or ()]}


def muted_users_state(ctx: StateContext) -> MutedUsersState:
    return {"muted_users": muted_users_list(ctx.caller.realm_id, ctx.caller.user_id)}


def user_status_state(ctx: StateContext) -> UserStatusState:
    return {"user_status": visible_statuses(ctx.caller.realm_id, ctx.access, ctx.users)}


def user_topic_state(ctx: StateContext) -> dict[str, Any]:
    """UserTopicState and, for old clients, MutedTopicsState: one Query for both. As the
    reference: clients that name user_topic get no legacy muted_topics."""
    legacy = ctx.wants("muted_topics") and (
        ctx.fetch_types is None or "user_topic" not in ctx.fetch_types)
    modern = ctx.wants("user_topic")
    if not legacy and not modern:
        return {}
    items = ctx.user_topics
    state: dict[str, Any] = {}
    if modern:
        display = None if ctx.capable("empty_topic_name") else empty_topic_display_name(
            ctx.realm)
        state["user_topics"] = [user_topic_dict(i, display) for i in items]
    if legacy:
        state["muted_topics"] = muted_topic_triples(ctx.realm, items)
    return state


def saved_snippets_state(ctx: StateContext) -> SavedSnippetsState:
    return {"saved_snippets": user_snippets(ctx.caller.realm_id, ctx.caller.user_id)}


class ScheduledMessagesState(TypedDict, total=False):
    """Present when `scheduled_messages` is among the fetch types."""

    scheduled_messages: list[ScheduledMessageDict]


def scheduled_messages_state(ctx: StateContext) -> ScheduledMessagesState:
    return {"scheduled_messages": user_scheduled_messages(ctx.caller.realm_id,
                                                          ctx.caller.user_id)}


class RemindersState(TypedDict, total=False):
    """Present when `reminders` is among the fetch types (level 399)."""

    reminders: list[ReminderDict]


def reminders_state(ctx: StateContext) -> RemindersState:
    return {"reminders": user_reminders(ctx.caller.realm_id, ctx.caller.user_id)}


def drafts_state(ctx: StateContext) -> DraftsState:
    return {"drafts": user_drafts(ctx.caller.realm_id, ctx.caller.user_id)}
