"""GET /messages/matches_narrow: which of some messages a narrow (as GET /messages reads
it) would show, with the fields GET /messages search results carry.

The narrow is parsed, resolved and evaluated by the narrow package, as GET /messages
does, over the messages the caller received only (as the reference, even when the narrow
names a channel whose history GET /messages would read); the messages are read with
BatchGetItem (100 per request), checked for access with each channel and subscription
read once, and, when the narrow asks for flags, against the caller's flags of those
messages (two batched reads).
"""
from __future__ import annotations

import html
from dataclasses import replace
from typing import Any, TypedDict

from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.messages.reads.bound import load_messages
from chalicelib.actions.messages.reads.range import matching, resolve
from chalicelib.core.principal import Principal
from chalicelib.narrow.search_terms import highlight_match

MAX_MESSAGE_IDS = 1000   # msg_ids in one request, declared on the view's parameter


class MatchFields(TypedDict):
    match_content: str
    match_subject: str


class MatchesNarrowResult(TypedDict):
    messages: dict[str, MatchFields]


def messages_matching_narrow(caller: Principal, msg_ids: list[int], narrow_terms: list[Any]
                             ) -> MatchesNarrowResult:
    # Only messages the caller received, whatever the narrow: the reference answers
    # from the caller's own rows here, history or not.
    ev = replace(resolve(caller, narrow_terms), include_history=False)
    messages = load_messages(caller.realm_id, sorted(set(msg_ids)))
    found = matching(caller, ev, messages, Access(caller))
    search = ev.narrow.search_text
    result: dict[str, MatchFields] = {}
    for m in found:
        topic = m.topic if m.type == "stream" else ""
        if search is None:
            result[str(m.message_id)] = {"match_content": m.rendered_content,
                                         "match_subject": html.escape(topic)}
        else:
            content, subject = highlight_match(search, m.rendered_content, topic)
            result[str(m.message_id)] = {"match_content": content, "match_subject": subject}
    return {"messages": result}
