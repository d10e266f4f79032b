"""GET /messages and GET /messages/{id}: the range a narrow holds, rendered with flags."""
from __future__ import annotations

from typing import Any, TypedDict

from chalicelib.actions.messages.reads.access import access_message
from chalicelib.actions.messages.reads.dicts import (
    FetchedMessageDict,
    load_people_and_channels,
    message_api_dict,
)
from chalicelib.actions.messages.reads.range import check_counts, fetch_range, resolve
from chalicelib.actions.read_state.reads.flags import flags_of
from chalicelib.actions.realm.reads.realms import get_realm
from chalicelib.actions.realm.reads.settings import empty_topic_display_name
from chalicelib.core.principal import Principal
from chalicelib.lib.narrow import parse_narrow
from chalicelib.models.messages import Message


class GetMessagesResult(TypedDict):
    messages: list[FetchedMessageDict]
    anchor: int
    found_anchor: bool
    found_oldest: bool
    found_newest: bool
    history_limited: bool


class GetMessageResult(TypedDict):
    message: FetchedMessageDict
    raw_content: str


def get_messages(caller: Principal, *, anchor: str | int, include_anchor: bool,
                 num_before: int, num_after: int, narrow_terms: list[Any],
                 apply_markdown: bool, allow_empty_topic_name: bool) -> GetMessagesResult:
    check_counts(num_before, num_after)
    target = resolve(caller, parse_narrow(narrow_terms))
    found = fetch_range(caller, target, anchor, include_anchor, num_before, num_after)
    return {
        "messages": render(caller, found.messages, apply_markdown, allow_empty_topic_name),
        "anchor": found.anchor,
        "found_anchor": found.found_anchor,
        "found_oldest": found.found_oldest,
        "found_newest": found.found_newest,
        "history_limited": False,
    }


def render(caller: Principal, messages: list[Message], apply_markdown: bool,
           allow_empty_topic_name: bool) -> list[FetchedMessageDict]:
    """The messages in the API's shape, each with the caller's flags (batched reads)."""
    if not messages:
        return []
    realm = get_realm(caller.realm_id)
    users, streams = load_people_and_channels(caller.realm_id, messages)
    flags = flags_of(caller.realm_id, caller.user_id, [m.message_id for m in messages])
    empty = None if allow_empty_topic_name else empty_topic_display_name(realm)
    return [{**message_api_dict(message, users, streams, realm, apply_markdown=apply_markdown,
                                empty_topic_name=empty),
             "flags": flags[message.message_id]} for message in messages]


def get_message(caller: Principal, message_id: int, apply_markdown: bool,
                allow_empty_topic_name: bool) -> GetMessageResult:
    message = access_message(caller, message_id).message
    rendered = render(caller, [message], apply_markdown, allow_empty_topic_name)[0]
    return {"message": rendered, "raw_content": message.content}

