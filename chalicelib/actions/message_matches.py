"""GET /messages/matches_narrow: which of some messages a narrow (as GET /messages reads
it) would show, with the fields GET /messages search results carry.

The messages are read with BatchGetItem (100 per request) and checked for access with
one read of each channel and of the caller's subscription to it, not one per message.
"""
from __future__ import annotations

import html
import json
from typing import Any, TypedDict

from chalicelib.actions.message_access import ChannelReads
from chalicelib.actions.message_send import direct_recipient_users
from chalicelib.actions.streams import access_stream_by_id, access_stream_by_name
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError
from chalicelib.lib.narrow import Narrow, parse_narrow
from chalicelib.models.messages import Message

MAX_MESSAGE_IDS = 1000


class MatchFields(TypedDict):
    match_content: str
    match_subject: str


class MatchesNarrowResult(TypedDict):
    messages: dict[str, MatchFields]


def messages_matching_narrow(caller: Principal, msg_ids: list[int], narrow_terms: list[Any]
                             ) -> MatchesNarrowResult:
    if len(msg_ids) > MAX_MESSAGE_IDS:
        raise ApiError(f"Too many message IDs (limit: {MAX_MESSAGE_IDS})")
    narrow = parse_narrow(narrow_terms)
    stream_id = _narrow_stream_id(caller, narrow)
    participants = _narrow_participants(caller, narrow)
    messages = Message.batch_get([(caller.realm_id, i) for i in set(msg_ids)])
    reads = ChannelReads(caller)
    found: dict[str, MatchFields] = {}
    for message in sorted(messages, key=lambda m: m.message_id):
        if _matches(message, narrow, stream_id, participants) and reads.can_read(message):
            found[str(message.message_id)] = {
                "match_content": message.rendered_content,
                "match_subject": html.escape(message.topic if message.type == "stream" else "")}
    return {"messages": found}


def _narrow_stream_id(caller: Principal, narrow: Narrow) -> int | None:
    if narrow.channel is None:
        return None
    if isinstance(narrow.channel, int) or str(narrow.channel).isdigit():
        return access_stream_by_id(caller, int(narrow.channel))[0].stream_id
    return access_stream_by_name(caller, str(narrow.channel))[0].stream_id


def _narrow_participants(caller: Principal, narrow: Narrow) -> set[int] | None:
    if narrow.dm is None:
        return None
    operand = narrow.dm if isinstance(narrow.dm, str) else json.dumps(narrow.dm)
    return {u.user_id for u in direct_recipient_users(caller, operand)} | {caller.user_id}


def _matches(message: Message, narrow: Narrow, stream_id: int | None,
             participants: set[int] | None) -> bool:
    if stream_id is not None and (message.type != "stream" or message.stream_id != stream_id):
        return False
    if narrow.topic is not None and message.topic.lower() != narrow.topic.lower():
        return False
    if participants is not None and (message.type != "private"
                                     or set(message.recipient_ids) != participants):
        return False
    if narrow.message_id is not None and message.message_id != narrow.message_id:
        return False
    return not (narrow.is_dm and message.type != "private")
