"""Message flags: mark read or unread, star, collapse; by ids, by narrow, in bulk."""
from __future__ import annotations

from typing import Any, Literal

from chalicelib.actions.messages.flags import (
    UpdateMessageFlagsForNarrowResult,
    UpdateMessageFlagsResult,
    do_update_message_flags,
    do_update_message_flags_for_narrow,
)
from chalicelib.actions.messages.reads.range import parse_anchor
from chalicelib.actions.read_state.mark_read import (
    MarkAllAsReadResult,
    do_mark_all_as_read,
    do_mark_stream_as_read,
    do_mark_topic_as_read,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/messages/flags", "POST")
def update_message_flags(caller: Principal, *, messages: Json[list[int]],
                         op: Literal["add", "remove"], flag: str) -> UpdateMessageFlagsResult:
    return do_update_message_flags(caller, messages, op, flag)


@bp.endpoint("/messages/flags/narrow", "POST")
def update_message_flags_for_narrow(caller: Principal, *, anchor: str,
                                    include_anchor: bool = True, num_before: int,
                                    num_after: int, narrow: Json[list[Any]],
                                    op: Literal["add", "remove"], flag: str,
                                    anchor_date: str | None = None,
                                    ) -> UpdateMessageFlagsForNarrowResult:
    return do_update_message_flags_for_narrow(
        caller, anchor=parse_anchor(anchor), include_anchor=include_anchor,
        num_before=num_before, num_after=num_after, narrow_terms=narrow, op=op, flag=flag,
        anchor_date=anchor_date)


@bp.endpoint("/mark_all_as_read", "POST")
def mark_all_as_read(caller: Principal) -> MarkAllAsReadResult:
    return do_mark_all_as_read(caller)


@bp.endpoint("/mark_stream_as_read", "POST")
def mark_stream_as_read(caller: Principal, *, stream_id: int) -> EmptyResult:
    do_mark_stream_as_read(caller, stream_id)
    return {}


@bp.endpoint("/mark_topic_as_read", "POST")
def mark_topic_as_read(caller: Principal, *, stream_id: int, topic_name: str) -> EmptyResult:
    do_mark_topic_as_read(caller, stream_id, topic_name)
    return {}
