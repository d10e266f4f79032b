"""GET /messages and GET /messages/{id}: reads with access checks and one batch of lookups."""
from __future__ import annotations

from typing import Any

from pynamodb.expressions.condition import Condition

from chalicelib.actions.message_dicts import (
    flags_for,
    load_people_and_channels,
    message_api_dict,
)
from chalicelib.actions.message_send import _direct_recipients
from chalicelib.actions.realm_settings import empty_topic_display_name
from chalicelib.actions.realms import get_realm
from chalicelib.actions.streams import (
    access_stream_by_id,
    access_stream_by_name,
    can_read_message,
    get_subscription,
)
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError
from chalicelib.lib.narrow import Narrow, parse_narrow
from chalicelib.models.messages import Message, dm_key, topic_key
from chalicelib.models.streams import Stream, Subscription, stream_key, user_key

MAX_BATCH = 5000
UNNARROWED_PAGE_CAP = 10   # Query pages read for the unnarrowed view before giving up


def _accessible(caller: Principal, message: Message, streams: dict[int, tuple[Stream, Any]],
                ) -> bool:
    if message.type == "private":
        return caller.user_id in message.recipient_ids
    if message.stream_id not in streams:
        stream = Stream.get_or_none(caller.realm_id, message.stream_id)
        subscription = get_subscription(caller.realm_id, caller.user_id, message.stream_id)
        streams[message.stream_id] = (stream, subscription)
    stream, subscription = streams[message.stream_id]
    return stream is not None and can_read_message(stream, subscription, message.message_id,
                                                   caller)


def _query(narrow: Narrow, caller: Principal) -> tuple[Any, Any]:
    """The index query and its hash key for a narrow; (None, None) means the whole realm."""
    if narrow.channel is not None:
        if isinstance(narrow.channel, int):
            stream, _ = access_stream_by_id(caller, narrow.channel)
        else:
            stream, _ = access_stream_by_name(caller, narrow.channel)
        if narrow.topic is not None:
            return Message.by_topic.query, topic_key(caller.realm_id, stream.stream_id,
                                                     narrow.topic)
        return Message.by_stream.query, stream_key(caller.realm_id, stream.stream_id)
    if narrow.dm is not None:
        operand = narrow.dm if isinstance(narrow.dm, str) else __import__("json").dumps(narrow.dm)
        participants = _direct_recipients(caller, operand) | {caller.user_id}
        return Message.by_dm.query, dm_key(caller.realm_id, participants)
    return None, None


def _fetch(caller: Principal, narrow: Narrow, condition: Condition, forward: bool,
           limit: int) -> list[Message]:
    if limit <= 0:
        return []
    query, hash_key = _query(narrow, caller)
    streams: dict[int, tuple[Stream, Any]] = {}
    found: list[Message] = []
    if query is not None:
        items = query(hash_key, condition, scan_index_forward=forward, limit=limit * 2)
    else:
        items = Message.query(caller.realm_id, condition, scan_index_forward=forward,
                              page_size=200)
    for examined, message in enumerate(items, start=1):
        if _accessible(caller, message, streams) and (not narrow.is_dm
                                                      or message.type == "private"):
            found.append(message)
            if len(found) >= limit:
                break
        if query is None and examined > UNNARROWED_PAGE_CAP * 200:
            break
    return found


def get_messages(caller: Principal, *, anchor: str | int, include_anchor: bool,
                 num_before: int, num_after: int, narrow_terms: list[Any],
                 apply_markdown: bool, allow_empty_topic_name: bool) -> dict[str, Any]:
    if isinstance(anchor, str) and anchor.lstrip("-").isdigit():
        anchor = int(anchor)
    if num_before < 0 or num_after < 0 or num_before > MAX_BATCH or num_after > MAX_BATCH:
        raise ApiError(f"num_before and num_after must be between 0 and {MAX_BATCH}")
    narrow = parse_narrow(narrow_terms)
    key = Message.message_id
    anchor_id: int | None = None
    if anchor in ("newest", "first_unread"):
        # The newest message is the anchor: it and num_before older ones.
        before = _fetch(caller, narrow, key >= 0, False, num_before + 1)[::-1]
        after: list[Message] = []
        found_anchor, found_newest = bool(before), True
        found_oldest = len(before) < num_before + 1
    elif anchor == "oldest":
        before = []
        after = _fetch(caller, narrow, key >= 0, True, num_after + 1)
        found_anchor, found_oldest = bool(after), True
        found_newest = len(after) < num_after + 1
    else:
        anchor_id = int(anchor)
        # One extra row each way tells whether the history goes on.
        before = _fetch(caller, narrow, key < anchor_id, False, num_before + 1)[::-1]
        found_oldest = len(before) <= num_before
        before = before[-num_before:] if num_before else []
        after = _fetch(caller, narrow, key >= anchor_id, True, num_after + 2)
        found_anchor = bool(after) and after[0].message_id == anchor_id
        found_newest = len(after) < num_after + (2 if found_anchor else 1)
        if found_anchor and not include_anchor:
            after = after[1:]
        after = after[:num_after + (1 if found_anchor and include_anchor else 0)]
    if narrow.message_id is not None:
        before = [m for m in before + after if m.message_id == narrow.message_id]
        after = []
    messages = before + after
    return {
        "messages": render(caller, messages, apply_markdown, allow_empty_topic_name),
        "anchor": anchor_id if anchor_id is not None else (
            (messages[-1] if anchor != "oldest" else messages[0]).message_id
            if messages else 0),
        "found_anchor": found_anchor,
        "found_oldest": found_oldest,
        "found_newest": found_newest,
        "history_limited": False,
    }


def render(caller: Principal, messages: list[Message], apply_markdown: bool,
           allow_empty_topic_name: bool) -> list[dict[str, Any]]:
    if not messages:
        return []
    realm = get_realm(caller.realm_id)
    users, streams = load_people_and_channels(caller.realm_id, messages)
    empty = None if allow_empty_topic_name else empty_topic_display_name(realm)
    result = []
    for message in messages:
        data = message_api_dict(message, users, streams, realm, apply_markdown=apply_markdown,
                                empty_topic_name=empty)
        data["flags"] = flags_for(message, caller.user_id)
        result.append(data)
    return result


def get_message(caller: Principal, message_id: int, apply_markdown: bool,
                allow_empty_topic_name: bool) -> dict[str, Any]:
    message = Message.get_or_none(caller.realm_id, message_id)
    if message is None or not _accessible(caller, message, {}):
        raise ApiError("Invalid message(s)")
    rendered = render(caller, [message], apply_markdown, allow_empty_topic_name)[0]
    return {"message": rendered, "raw_content": message.content}


def subscribed_stream_ids(caller: Principal) -> set[int]:
    return {s.stream_id for s in Subscription.query(user_key(caller.realm_id, caller.user_id))
            if s.active}
