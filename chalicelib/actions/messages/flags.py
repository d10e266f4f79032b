"""POST /messages/flags and /messages/flags/narrow: change the caller's flags on messages.

As the reference: marking read never needs access (only the caller's own markers are
touched, and a message the caller never received has none); adding a flag that needs
the message (starring, collapsing, marking unread) is refused for a message the caller
cannot read; marking unread skips messages in channels the caller is not subscribed to.
A message the caller did not receive that they star, collapse or mark unread becomes
theirs (a historical row: messages/historical.py).
"""
from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from chalicelib.actions.messages.historical import keep_as_historical
from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.messages.reads.bound import load_messages
from chalicelib.actions.messages.reads.date_anchor import check_anchor_date, date_anchor
from chalicelib.actions.messages.reads.range import check_counts, fetch_range, resolve
from chalicelib.actions.read_state.markers import (
    mark_ids_read,
    mark_unread,
    mentions_of,
    set_lasting_flag,
)
from chalicelib.actions.read_state.reads.flags import flag_rows
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.message_flags import ALL_FLAGS, EDITABLE_FLAGS
from chalicelib.models.messages import Message, message_place

MAX_NARROW_FLAG_MESSAGES = 1000  # each side of the anchor: "the server may decrease this"
INVALID_MESSAGES = "Message not found, or you cannot see it."

Op = Literal["add", "remove"]


class UpdateMessageFlagsResult(TypedDict):
    messages: list[int]
    ignored_because_not_subscribed_channels: NotRequired[list[int]]


class UpdateMessageFlagsForNarrowResult(TypedDict):
    processed_count: int
    updated_count: int
    first_processed_id: int | None
    last_processed_id: int | None
    found_oldest: bool
    found_newest: bool
    ignored_because_not_subscribed_channels: NotRequired[list[int]]


def check_flag(flag: str) -> None:
    if flag not in ALL_FLAGS:
        raise ApiError(f"'{flag}' is not a message flag")
    if flag not in EDITABLE_FLAGS:
        raise ApiError(f"The '{flag}' flag cannot be changed directly")


def do_update_message_flags(caller: Principal, message_ids: list[int], op: Op, flag: str
                            ) -> UpdateMessageFlagsResult:
    check_flag(flag)
    ids = list(dict.fromkeys(message_ids))
    result: UpdateMessageFlagsResult = {"messages": ids}
    if flag == "read" and op == "add":
        mark_ids_read(caller.realm_id, caller.user_id, ids)
    elif op == "remove" and flag != "read":
        set_lasting_flag(caller.realm_id, caller.user_id, flag, False, ids)
    else:
        # Marking unread or adding a flag needs the messages themselves.
        messages = load_messages(caller.realm_id, ids)
        if len(messages) != len(ids):
            raise ApiError(INVALID_MESSAGES)
        ignored = _apply_to_messages(caller, messages, op, flag, checked=None)[1]
        if flag == "read":
            result["ignored_because_not_subscribed_channels"] = ignored
    return result


def _apply_to_messages(caller: Principal, messages: list[Message], op: Op, flag: str, *,
                       checked: Access | None) -> tuple[list[int], list[int]]:
    """Changes the flag on these messages; returns (ids changed, channels skipped when
    marking unread). `checked`: the Access that found the caller can read them all (its
    channels and subscriptions already read), or None to check them here."""
    access = checked
    if access is None:
        access = Access(caller)
        access.load(messages)
    ignored: set[int] = set()
    targets = []
    for message in messages:
        if checked is None and not access.may_read(message):
            raise ApiError(INVALID_MESSAGES)
        if flag == "read" and op == "remove" and message.type == "stream" and \
                not access.subscribed(message):
            ignored.add(int(message.stream_id))
            continue
        targets.append(message)
    ids = [m.message_id for m in targets]
    if not (flag == "read" and op == "add"):
        # Starring, collapsing or marking unread a message read from a channel's
        # history makes it the caller's (a historical row), as the reference does.
        keep_as_historical(access, targets)
    if flag == "read" and op == "add":
        changed = mark_ids_read(caller.realm_id, caller.user_id, ids)
    elif flag == "read":
        rows = flag_rows(caller.realm_id, caller.user_id, ids)
        changed = mark_unread(caller.realm_id, caller.user_id, targets, lambda m: mentions_of(
            rows[m.message_id].flags or () if m.message_id in rows else ()))
    else:
        changed = set_lasting_flag(caller.realm_id, caller.user_id, flag, op == "add", ids,
                                   {m.message_id: message_place(caller.realm_id, m)
                                    for m in targets})
    return changed, sorted(ignored)


def do_update_message_flags_for_narrow(caller: Principal, *, anchor: str | int,
                                       include_anchor: bool, num_before: int,
                                       num_after: int, narrow_terms: list[object], op: Op,
                                       flag: str, anchor_date: str | None = None
                                       ) -> UpdateMessageFlagsForNarrowResult:
    check_flag(flag)
    check_counts(num_before, num_after)
    moment = check_anchor_date(anchor, anchor_date)
    ev = resolve(caller, narrow_terms)
    if moment is not None:   # anchor=date, as GET /messages reads it
        anchor = date_anchor(caller, ev, moment)
    found = fetch_range(caller, ev, anchor, include_anchor,
                        min(num_before, MAX_NARROW_FLAG_MESSAGES),
                        min(num_after, MAX_NARROW_FLAG_MESSAGES))
    changed, ignored = _apply_to_messages(caller, found.messages, op, flag,
                                          checked=found.access)
    ids = [m.message_id for m in found.messages]
    result: UpdateMessageFlagsForNarrowResult = {
        "processed_count": len(ids),
        "updated_count": len(changed),
        "first_processed_id": ids[0] if ids else None,
        "last_processed_id": ids[-1] if ids else None,
        "found_oldest": found.found_oldest,
        "found_newest": found.found_newest,
    }
    if flag == "read" and op == "remove":
        result["ignored_because_not_subscribed_channels"] = ignored
    return result
