"""`anchor=date`: the first message of the narrow the caller may read that was sent at or
after `anchor_date` (the newest end when there is none).

Message ids grow with time, so where the date falls among the realm's messages is a
binary search of single-item Queries (deleted ids are gaps it steps over). Each probe
halves the ids left to search, so it ends within MAX_PROBES probes whatever the gaps.
That position is only a boundary: the anchor answered is the first message at or past
it that the narrow holds and the caller may read, so the answer never names, nor depends
on, a message the caller cannot read.
"""
from __future__ import annotations

from datetime import UTC, datetime

from chalicelib.actions.messages.reads.bound import Bound
from chalicelib.actions.messages.reads.range import LARGER_THAN_MAX_MESSAGE_ID, fetch
from chalicelib.aws.deadline import check_deadline
from chalicelib.core.errors import ApiError, missing_argument
from chalicelib.core.principal import Principal
from chalicelib.models.messages import Message
from chalicelib.narrow import Evaluator

# Ids are below 2**63: each probe halves the range, so 64 probes always suffice.
MAX_PROBES = 64


def parse_anchor_date(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ApiError("Invalid anchor_date: give an ISO 8601 date and time") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def check_anchor_date(anchor: str | int | None, anchor_date: str | None) -> datetime | None:
    """The date `anchor=date` needs (required with it, refused without it)."""
    if anchor != "date":
        if anchor_date is not None:
            raise ApiError("anchor_date is only for anchor=date")
        return None
    if anchor_date is None:
        raise missing_argument("anchor_date")
    return parse_anchor_date(anchor_date)


def date_anchor(caller: Principal, ev: Evaluator, moment: datetime) -> int:
    """The first readable message of the narrow sent at or after the moment, or
    LARGER_THAN_MAX_MESSAGE_ID (the newest end) if there is none."""
    boundary = first_id_since(caller.realm_id, int(moment.timestamp()))
    if boundary is None:
        return LARGER_THAN_MAX_MESSAGE_ID
    found = fetch(caller, ev, Bound(">=", boundary, forward=True), 1).messages
    return found[0].message_id if found else LARGER_THAN_MAX_MESSAGE_ID


def first_id_since(realm_id: int, moment: int) -> int | None:
    """The id of the realm's first message sent at or after `moment` (seconds); None if
    every message is older. Whatever is found is a boundary, never an answer."""
    newest = next(iter(Message.query(realm_id, scan_index_forward=False, limit=1)), None)
    if newest is None or newest.date_sent < moment:
        return None
    # `found` is sent at or after the moment; every message below `low` is older; the
    # ids in [low, high) are not searched yet (high <= found).
    found, low, high = newest.message_id, 0, newest.message_id
    for _ in range(MAX_PROBES):
        if low >= high:
            break
        check_deadline()
        middle = (low + high) // 2
        probe = next(iter(Message.query(realm_id, Message.message_id >= middle, limit=1)),
                     None)
        if probe is None or probe.message_id >= high:
            high = middle              # no message in [middle, high)
        elif probe.date_sent >= moment:
            found, high = probe.message_id, middle   # none in [middle, probe) either
        else:
            low = probe.message_id + 1
    return found
