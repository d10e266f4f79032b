"""GET /messages/matches_narrow: which of some messages a narrow (as GET /messages reads
it) would show, with the fields GET /messages search results carry.

The narrow is resolved as GET /messages resolves it (actions/message_range.py); the
messages are read with BatchGetItem (100 per request), checked for access with each
channel and subscription read once, and, for is:unread, is:starred and is:mentioned,
against the caller's flags of those messages (two batched reads).
"""
from __future__ import annotations

import html
from typing import Any, TypedDict

from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.messages.reads.range import Target, load_messages, resolve
from chalicelib.actions.read_state.reads.flags import flags_of
from chalicelib.core.principal import Principal
from chalicelib.lib.narrow import parse_narrow
from chalicelib.models.message_flags import MENTION_FLAGS
from chalicelib.models.messages import Message

MAX_MESSAGE_IDS = 1000   # msg_ids in one request, declared on the view's parameter


class MatchFields(TypedDict):
    match_content: str
    match_subject: str


class MatchesNarrowResult(TypedDict):
    messages: dict[str, MatchFields]


def messages_matching_narrow(caller: Principal, msg_ids: list[int], narrow_terms: list[Any]
                             ) -> MatchesNarrowResult:
    target = resolve(caller, parse_narrow(narrow_terms))
    messages = load_messages(caller.realm_id, sorted(set(msg_ids)))
    access = Access(caller)
    access.load(messages)
    found = [m for m in messages if target.matches(m) and access.may_read(m)]
    found = _with_personal_flag(caller, target, found)
    return {"messages": {str(m.message_id): {
        "match_content": m.rendered_content,
        "match_subject": html.escape(m.topic if m.type == "stream" else "")} for m in found}}


def _with_personal_flag(caller: Principal, target: Target, messages: list[Message]
                        ) -> list[Message]:
    """The messages that also have the flag is:unread/starred/mentioned asks for."""
    personal = target.narrow.personal
    if personal is None or not messages:
        return messages
    flags = flags_of(caller.realm_id, caller.user_id, [m.message_id for m in messages])

    def has(message_id: int) -> bool:
        mine = set(flags[message_id])
        if personal == "unread":
            return "read" not in mine
        if personal == "starred":
            return "starred" in mine
        return bool(mine & set(MENTION_FLAGS))

    return [m for m in messages if has(m.message_id)]
