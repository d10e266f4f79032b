"""POST /register's presence (`presence`).

PLACEHOLDER (issue 13, presence): until presence is recorded nobody has any; the
server's clock is real. presence_state is the one place to replace.
"""
from __future__ import annotations

import time
from typing import Any, TypedDict

from chalicelib.events.state.context import StateContext


class PresenceState(TypedDict, total=False):
    """Present when `presence` is among the fetch types (then every key is)."""

    presences: dict[str, Any]       # by user id (or email, without slim_presence)
    presence_last_update_id: int
    server_timestamp: float


def presence_state(ctx: StateContext) -> PresenceState:
    # PLACEHOLDER (issue 13, presence): -1 is the reference's "no presence data".
    return {"presences": {}, "presence_last_update_id": -1, "server_timestamp": time.time()}
