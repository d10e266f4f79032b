"""A stream batch cut by ranges of people, one range per invocation (fanout/scope.py).

Why: a message to a channel of 10,000 readers was read, flagged, resolved to queues
(the audience's directory: 100 BatchGetItems) and formed on one invocation before any
slice of its appends went elsewhere; that invocation's work grew with the audience, as
did the critical path. Here the invocation that takes the batch looks at its largest
audience first (a channel's subscriber count, a realm's people: one read each) and,
above `fanout_slice_people()` people, cuts the user ids into ranges of about that many,
as equal widths between the audience's lowest and highest id (two single-item Queries
of the channel's subscriptions). It sends each range, with the batch's records, to
another invocation of the same function, all at once
(slices.py's runner: synchronous invokes; outside Lambda, threads of this process).
Each range does everything per person for its people; the batch's own invocation
does the batch-wide steps only, and settles the messages' flight once every range has
written its rows. So the largest invocation does about one range's work, no more than
one invocation does for an audience of that size, and the critical path is one
invocation longer than for a small audience.

A queue belongs to its owner's range, so a queue's events of a batch are appended by
one invocation, in stream order. A range that fails fails the batch's records it
reached, and the stream offers them again (appends skip what a queue has; rows are
puts; the marks say which messages' rows are complete).
"""
from __future__ import annotations

import json
import math
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypedDict

from chalicelib import config
from chalicelib.aws.log import logger
from chalicelib.delivery.outbox import Audience, stored_audience
from chalicelib.fanout.delivered_rows import delivery_mark
from chalicelib.fanout.scope import BATCH_STEPS_ONLY, Bound, Scope
from chalicelib.fanout.slices import SliceResponse, SliceRunner, slice_pool, slice_runner
from chalicelib.models.channels import Stream, Subscription, stream_key
from chalicelib.models.events import Outbox
from chalicelib.models.fanout_marks import FanoutMark
from chalicelib.models.ids import realm_counter

RANGE_KEY = "people"   # in a slice: a range of people and the batch's records


class RangeResult(TypedDict):
    failed: list[str]     # sequence numbers of the records that failed in the range
    rows_failed: bool     # its recipients' rows: the batch may not settle
    delivered: int        # events it appended


@dataclass(frozen=True)
class _Noted:
    realm_id: int
    outbox_id: str
    audience: Audience
    message: bool


def _noted(records: list[dict[str, Any]]) -> list[_Noted]:
    noted = []
    for raw in records:
        image = raw.get("dynamodb", {}).get("NewImage")
        if raw.get("eventName") != "INSERT" or not image or "event" not in image:
            continue
        try:
            outbox = Outbox.from_raw_data(image)
            noted.append(_Noted(int(outbox.realm_id), outbox.outbox_id,
                                stored_audience(outbox.audience),
                                outbox.event.get("type") == "message"))
        except Exception:  # noqa: BLE001 - a poison record fails alone, in the first pass
            logger.warning("unreadable outbox record left to the first pass", exc_info=True)
    return noted


def _realm_wide(audience: Audience) -> bool:
    """Audiences that may reach anyone in the organization: the realm, and whoever may
    know of a public channel (every member and above, not only its subscribers)."""
    return bool(audience.get("realm")) or ("channel_viewers" in audience
                                           and bool(audience.get("public")))


def _channel_ids(audience: Audience) -> list[int]:
    if _realm_wide(audience):
        return []
    if "stream" in audience:
        return [int(audience["stream"])]
    if "channel_viewers" in audience:
        return [int(audience["channel_viewers"])]
    return [int(s) for s in audience.get("streams") or ()]


def _estimates(noted: list[_Noted]) -> list[tuple[int, _Noted]]:
    """Each record's audience size, at most: a channel's subscriber count (the batch's
    channels in one BatchGetItem), a realm's people (its user counter), a list's
    length."""
    keys = sorted({(n.realm_id, s) for n in noted for s in _channel_ids(n.audience)})
    counts = {(int(s.realm_id), int(s.stream_id)): int(s.subscriber_count or 0)
              for s in Stream.batch_get(keys)} if keys else {}
    people: dict[int, int] = {}
    sized = []
    for record in noted:
        realm_id, audience = record.realm_id, record.audience
        if _realm_wide(audience):
            if realm_id not in people:
                counter = realm_counter(realm_id)
                people[realm_id] = int(counter.user or 0) if counter else 0
            size = people[realm_id]
        else:
            size = len(audience.get("users") or ()) + sum(
                counts.get((realm_id, s), 0) for s in _channel_ids(audience))
        sized.append((size, record))
    return sized


def _id_span(record: _Noted, size: int) -> tuple[int, int]:
    """The lowest and highest user id of the audience (for a realm: 1 to its counter,
    which is its `size` as _estimates read it)."""
    channels = _channel_ids(record.audience)
    if not channels and not _realm_wide(record.audience):
        listed = [int(u) for u in record.audience.get("users") or ()]
        return (min(listed), max(listed)) if listed else (1, 1)
    if not channels:
        return 1, max(1, size)
    key = stream_key(record.realm_id, channels[0])
    ends = [next(iter(Subscription.by_stream.query(key, limit=1, scan_index_forward=forward,
                                                   attributes_to_get=["user_id"])), None)
            for forward in (True, False)]
    if ends[0] is None or ends[1] is None:
        return 1, 1
    return int(ends[0].user_id), int(ends[1].user_id)


def plan_ranges(records: list[dict[str, Any]]) -> list[Scope] | None:
    """This invocation's scope (the batch-wide steps, no person's work), then the ranges
    of people for other invocations; None when one invocation is enough."""
    noted = _noted(records)
    if not noted:
        return None
    size = config.fanout_slice_people()
    largest, record = max(_estimates(noted), key=lambda sized: sized[0])
    if largest <= size:
        return None
    count = math.ceil(largest / size)
    low, high = _id_span(record, largest)
    width = max(1, math.ceil((high - low + 1) / count))
    starts = [low + i * width for i in range(count) if low + i * width <= high]
    bounds: list[tuple[Bound, Bound]] = [
        (None if i == 0 else start, None if i == len(starts) - 1 else starts[i + 1] - 1)
        for i, start in enumerate(starts)]
    if len(bounds) < 2:
        return None
    marks = [delivery_mark(n.outbox_id) for n in noted if n.message]
    done = frozenset(m.mark.split(":", 1)[1] for m in FanoutMark.batch_get(
        marks, consistent_read=True)) if marks else frozenset()
    return [BATCH_STEPS_ONLY, *(Scope(low, high, batch_steps=False, done=done)
                                for low, high in bounds)]


@dataclass
class RangeSlices:
    """The other ranges of a batch, running elsewhere."""

    scopes: list[Scope]
    futures: list[Future[SliceResponse]] = field(default_factory=list)
    _outcomes: list[RangeResult | None] | None = None

    def start(self, records: list[dict[str, Any]], run_here: SliceRunner) -> None:
        runner = slice_runner(here=run_here)
        for scope in self.scopes:
            payload = {RANGE_KEY: {"low": scope.low, "high": scope.high,
                                   "done": sorted(scope.done), "records": records}}
            self.futures.append(slice_pool.submit(runner, payload))

    def results(self) -> list[RangeResult | None]:
        """Each range's outcome once it ended; None for one that failed whole."""
        if self._outcomes is not None:
            return self._outcomes
        outcomes: list[RangeResult | None] = []
        for scope, future in zip(self.scopes, self.futures, strict=True):
            try:
                answer = future.result()
                outcomes.append(RangeResult(failed=list(answer.get("failed", [])),
                                            rows_failed=bool(answer.get("rows_failed")),
                                            delivered=int(answer.get("delivered", 0))))
            except Exception:  # noqa: BLE001 - the range's records fail and come back
                logger.exception("fan-out range failed",
                                 extra={"low": scope.low, "high": scope.high})
                outcomes.append(None)
        self._outcomes = outcomes
        return outcomes

    def wait_rows(self) -> None:
        """Before the flight is settled: every range's rows are written, or raise."""
        if any(r is None or r["rows_failed"] for r in self.results()):
            raise RuntimeError("a range of the fan-out did not write its recipients' rows")

    def delivered(self) -> int:
        return sum(r["delivered"] for r in self.results() if r is not None)

    def failed(self, collected: set[str]) -> set[str]:
        """The records that failed in some range (all of them for a range that failed
        whole)."""
        failed: set[str] = set()
        for result in self.results():
            failed |= set(collected) if result is None else set(result["failed"])
        return failed


def range_scope(payload: dict[str, Any]) -> Scope:
    return Scope(payload["low"], payload["high"], batch_steps=False,
                 done=frozenset(payload["done"]))


def encoded(payload: dict[str, Any]) -> dict[str, Any]:
    """A range's payload as it travels (JSON), for the in-process runner."""
    loaded: dict[str, Any] = json.loads(json.dumps(payload))
    return loaded
