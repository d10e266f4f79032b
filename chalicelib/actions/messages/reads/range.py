"""Which messages a narrow holds around an anchor, and whether the caller may read them.

Candidates come from the narrowest source that lists them (reads/sources.py). Each page
of candidates is checked for access (channels and subscriptions read once per request),
for a narrow that reads only what the caller received against what they received
(reads/received.py: the reference's rule is narrow/history.py), and against the whole
narrow by the narrow package's one evaluator. A side of the anchor stops after passing
over `MAX_SKIPPED` candidates that do not match; it then says it did not reach the end
(its found_* flag stays false). Matches never count against it, so a source that lists
only matches (a channel, a conversation, the combined feed) answers in full up to
`MAX_BATCH`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.messages.reads.bound import MESSAGES_PER_READ, Bound, load_messages
from chalicelib.actions.messages.reads.narrow import resolve_narrow
from chalicelib.actions.messages.reads.received import received_among
from chalicelib.actions.messages.reads.sources import candidates
from chalicelib.actions.read_state.reads.flags import flags_of
from chalicelib.aws.deadline import check_deadline
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.messages import Message
from chalicelib.narrow import Evaluator, Narrow, Term, message_facts, parse_narrow
from chalicelib.narrow.search_terms import search_test

MAX_BATCH = 5000           # messages one GET /messages may ask for (num_before + num_after)
MAX_SKIPPED = 5000         # candidates a side passes over (not matching) before giving up


def resolve(caller: Principal, terms: Any) -> Evaluator:
    """The wire narrow, parsed and resolved for the caller."""
    return resolve_narrow(caller, parse_narrow(terms), search_test)


@dataclass
class Side:
    """The readable matches on one side of the anchor, nearest first, and whether the
    source ran out (rather than the limit or the cap on skipped candidates)."""

    messages: list[Message] = field(default_factory=list)
    exhausted: bool = True


def fetch(caller: Principal, ev: Evaluator, bound: Bound, limit: int,
          access: Access | None = None) -> Side:
    """Up to `limit` readable messages of the narrow on one side of the anchor."""
    side = Side()
    if limit <= 0:
        side.exhausted = False
        return side
    access = access or Access(caller)
    narrowed = _within_received(ev, bound, access)
    if narrowed is None:
        return side   # nothing the caller received lies on this side
    source = candidates(caller, ev, narrowed, limit)
    skipped = 0
    chunk_size = min(MESSAGES_PER_READ, limit + 1)
    while chunk := [m for _, m in zip(range(chunk_size), source, strict=False)]:
        check_deadline()
        found = matching(caller, ev, chunk, access)
        skipped += len(chunk) - len(found)
        side.messages.extend(found)
        if len(side.messages) >= limit:
            del side.messages[limit:]
            side.exhausted = False
            return side
        if len(chunk) < chunk_size:
            return side   # the source ran out
        if skipped >= MAX_SKIPPED:
            side.exhausted = False
            return side
        chunk_size = MESSAGES_PER_READ
    return side


def _within_received(ev: Evaluator, bound: Bound, access: Access) -> Bound | None:
    """The side narrowed to the ids the caller received, for a channel they may read
    only so (one they left): the channel's newer messages are not read one by one."""
    channel = ev.narrow.first("channel")
    span = access.received_span(channel.id) if channel is not None else None
    if span is None:
        return bound
    low, high = span
    if bound.op == "<":
        return bound if bound.value <= high + 1 else Bound("<", high + 1, bound.forward)
    if bound.value > high:
        return None
    return bound if bound.value >= low else Bound(">=", low, bound.forward)


def matching(caller: Principal, ev: Evaluator, messages: list[Message], access: Access
             ) -> list[Message]:
    """The messages the caller may read (and, unless the narrow reads history, received)
    and the narrow holds (flags read in one batch, only if the narrow needs them)."""
    access.load(messages)
    readable = [m for m in messages if access.may_read(m)]
    if not ev.include_history:
        readable = received_among(access, readable)
    flags = flags_of(caller.realm_id, caller.user_id, [m.message_id for m in readable],
                     readable) \
        if ev.needs_flags and readable else {}
    return [m for m in readable if ev.matches(message_facts(
        m, access.channel(int(m.stream_id))[0] if m.type == "stream" else None,
        flags.get(m.message_id) if ev.needs_flags else None))]


# The anchor `newest` stands for, and `first_unread` when nothing is unread: larger than
# any message id, so clients can tell "at the end of history" from a message's id
# (the reference's LARGER_THAN_MAX_MESSAGE_ID, which clients compare against).
LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000


@dataclass
class MessageRange:
    messages: list[Message]
    anchor: int
    found_anchor: bool
    found_oldest: bool
    found_newest: bool
    access: Access   # what was read to check the messages: their channels, subscriptions


def first_unread_id(caller: Principal, ev: Evaluator) -> int | None:
    """The oldest unread message of the narrow the caller may read."""
    unread = Evaluator(Narrow((*ev.narrow.terms, Term("is", "unread"))), ev.reader,
                       ev.search_test)
    found = fetch(caller, unread, Bound(">=", 0, forward=True), 1).messages
    return found[0].message_id if found else None


def parse_anchor(anchor: str) -> str | int:
    """`newest`, `oldest`, `first_unread`, `date`, or a message id (a negative id reads as
    0 and one past the largest as the largest, as the reference reads them)."""
    if anchor in ("newest", "oldest", "first_unread", "date"):
        return anchor
    if not anchor.lstrip("-").isdigit() or len(anchor) > 20:
        raise ApiError("The anchor is not a message ID or a known position")
    return min(max(int(anchor), 0), LARGER_THAN_MAX_MESSAGE_ID)


def check_counts(num_before: int, num_after: int, maximum: int = MAX_BATCH) -> None:
    if num_before < 0 or num_after < 0 or num_before > maximum or num_after > maximum:
        raise ApiError(f"num_before and num_after must be between 0 and {maximum}")


def check_anchor_exclusion(include_anchor: bool, num_before: int, num_after: int) -> None:
    """The anchor can be left out only at an end of the range, as the reference has it."""
    if not include_anchor and num_before > 0 and num_after > 0:
        raise ApiError("include_anchor=false needs num_before or num_after to be 0: the "
                       "anchor can only be left out at one end of the range")


def fetch_range(caller: Principal, ev: Evaluator, anchor: str | int, include_anchor: bool,
                num_before: int, num_after: int) -> MessageRange:
    """The messages around the anchor (`newest`, `oldest`, `first_unread` or an id), with
    the reference's counts and flags in every corner (its `limit_query_to_range` and
    `post_process_limited_query`): `newest`, and `first_unread` with nothing unread, stand
    for an anchor past every message, so they give exactly `num_before` messages and
    answer LARGER_THAN_MAX_MESSAGE_ID; the anchor itself comes on top of `num_before` and
    `num_after` when it matches; asking for neither side reads the anchor alone."""
    check_anchor_exclusion(include_anchor, num_before, num_after)
    anchor_id = _anchor_id(caller, ev, anchor)
    at_left, at_right = anchor_id <= 0, anchor_id >= LARGER_THAN_MAX_MESSAGE_ID
    if at_right:
        num_after = 0
    need_before, need_after = not at_left and num_before > 0, not at_right and num_after > 0
    access = Access(caller)
    older, newer = Side(), Side()
    if need_before and need_after:
        older = fetch(caller, ev, Bound("<", anchor_id, forward=False), num_before, access)
        newer = fetch(caller, ev, Bound(">=", anchor_id, forward=True), num_after + 1,
                      access)
    elif need_before:
        # Up to and with the anchor when it is wanted (and is not past every message).
        upper = anchor_id + 1 if include_anchor and not at_right else anchor_id
        extra = 1 if include_anchor and not at_right else 0
        older = fetch(caller, ev, Bound("<", upper, forward=False), num_before + extra,
                      access)
    elif need_after:
        lower = 0 if at_left else anchor_id + (0 if include_anchor else 1)
        newer = fetch(caller, ev, Bound(">=", lower, forward=True),
                      num_after + (1 if include_anchor else 0), access)
    elif not at_left and not at_right:
        newer = Side(matching(caller, ev, load_messages(caller.realm_id, [anchor_id]),
                              access))
    rows = sorted(older.messages + newer.messages, key=lambda m: m.message_id)
    if at_right:
        before, anchored, after = rows, [], []
    else:
        before = [m for m in rows if m.message_id < anchor_id]
        anchored = [m for m in rows if m.message_id == anchor_id]
        after = [m for m in rows if m.message_id > anchor_id]
    if num_before:
        before = before[-num_before:]
    if num_after:
        after = after[:num_after]
    # A side stopped by the examination cap (not exhausted) cannot claim the end.
    found_oldest = at_left or (len(before) < num_before and older.exhausted)
    found_newest = at_right or (len(after) < num_after and newer.exhausted)
    return MessageRange(before + anchored + after, anchor_id, len(anchored) == 1,
                        found_oldest, found_newest, access)


def _anchor_id(caller: Principal, ev: Evaluator, anchor: str | int) -> int:
    """The anchor as a message id: `oldest` is 0; `newest`, and `first_unread` with nothing
    unread in the narrow, are LARGER_THAN_MAX_MESSAGE_ID."""
    if anchor == "oldest":
        return 0
    if anchor == "newest":
        return LARGER_THAN_MAX_MESSAGE_ID
    if anchor == "first_unread":
        unread = first_unread_id(caller, ev)
        return unread if unread is not None else LARGER_THAN_MAX_MESSAGE_ID
    if isinstance(anchor, str):
        raise ApiError("The anchor is not a message ID or a known position")
    return min(max(anchor, 0), LARGER_THAN_MAX_MESSAGE_ID)
