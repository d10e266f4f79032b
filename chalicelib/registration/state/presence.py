"""POST /register's presence (`presence`): the realm's presence as a fetching ping would
answer it (actions/presence/reads/snapshot.py), in the format `slim_presence` asks for."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.presence.reads.snapshot import SIMPLIFIED_PRESENCE, presence_data
from chalicelib.core.feature_levels import level_reached
from chalicelib.registration.state.context import StateContext
from chalicelib.rules.presence_rules import LegacyPresence, ModernPresence


class PresenceState(TypedDict, total=False):
    """Present when `presence` is among the fetch types (then every key is)."""

    presences: dict[str, ModernPresence | LegacyPresence]   # by user id (slim), or email
    presence_last_update_id: int
    server_timestamp: float


def presence_state(ctx: StateContext) -> PresenceState:
    """One Query of the realm's presence (and, for a limited guest, who they can access)."""
    # A client that takes modern presence events reads the modern state too (level 419).
    slim = ctx.presence.slim_presence or (level_reached(419) and ctx.capable(
        SIMPLIFIED_PRESENCE))
    data = presence_data(ctx.caller, slim, ctx.presence.history_limit_days,
                         ctx.realm_presence)
    return {"presences": data["presences"],
            "presence_last_update_id": data["presence_last_update_id"],
            "server_timestamp": data["server_timestamp"]}
