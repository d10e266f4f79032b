"""Presence timing and formats, as the reference defines them (pure functions).

The modern format gives a user's last active and last connected times; the legacy one,
keyed by email, a status per client ("website" only, since the server does not record
clients) plus "aggregated".
"""
from __future__ import annotations

import time
from typing import Literal, TypedDict

PING_INTERVAL_SECONDS = 60          # what clients are told (server_presence_ping_interval)
OFFLINE_THRESHOLD_SECONDS = 140     # older presence shows as offline
MIN_UPDATE_SECONDS = 55             # a timestamp younger than this is not rewritten
# Active again after missing this long: at risk of showing offline before the next
# regular ping, so the others hear of it at once (a presence event).
BACK_ONLINE_SECONDS = OFFLINE_THRESHOLD_SECONDS - PING_INTERVAL_SECONDS - 10
# A legacy status is "active" while the last active report is this recent.
LEGACY_ACTIVE_SECONDS = 120
# The legacy form of a presence event says "active" if the user was active this close
# to their last connection.
LEGACY_EVENT_ACTIVE_OFFSET_SECONDS = 70
# Update ids are write times in ms. A read answers with a last id at least this far
# behind its own start, so a write that was in flight (or from a slightly fast clock)
# is sent again next time rather than skipped: clients merge, duplicates are harmless.
UPDATE_ID_MARGIN_MS = 10_000

Status = Literal["active", "idle"]


def now() -> float:
    """The presence clock (UNIX seconds); tests move it instead of waiting."""
    return time.time()


class ModernPresence(TypedDict):
    active_timestamp: int
    idle_timestamp: int


class LegacyClientPresence(TypedDict):
    client: str
    status: Status
    timestamp: int
    pushable: bool


class LegacyAggregatedPresence(TypedDict):
    client: str
    status: Status
    timestamp: int


class LegacyPresence(TypedDict):
    website: LegacyClientPresence
    aggregated: LegacyAggregatedPresence


def modern_presence(active_at: int, connected_at: int) -> ModernPresence:
    return {"active_timestamp": active_at, "idle_timestamp": connected_at}


def legacy_status(active_at: int, connected_at: int, now: float) -> tuple[Status, int]:
    """(status, timestamp) for reads: active while the last active report is recent."""
    if now - active_at > LEGACY_ACTIVE_SECONDS:
        return "idle", connected_at
    return "active", active_at


def legacy_event_status(active_at: int, connected_at: int) -> tuple[Status, int]:
    """(status, timestamp) for the event sent right after a write."""
    if active_at + LEGACY_EVENT_ACTIVE_OFFSET_SECONDS >= connected_at:
        return "active", active_at
    return "idle", connected_at


def legacy_presence(active_at: int, connected_at: int, now: float) -> LegacyPresence:
    status, timestamp = legacy_status(active_at, connected_at, now)
    return {"website": {"client": "website", "status": status, "timestamp": timestamp,
                        "pushable": False},
            "aggregated": {"client": "website", "status": status, "timestamp": timestamp}}


def answered_last_update_id(passed: int | None, newest_seen: int | None,
                            read_started_ms: int) -> int:
    """presence_last_update_id: never below what the client passed; -1 when nothing was
    passed or seen; else the newest id seen, held back by UPDATE_ID_MARGIN_MS."""
    floor = passed if passed is not None else -1
    if newest_seen is None:
        return floor
    return max(floor, min(newest_seen, read_started_ms - UPDATE_ID_MARGIN_MS))
