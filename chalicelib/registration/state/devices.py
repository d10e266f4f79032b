"""POST /register's `devices` (level 468): the caller's logged-in mobile apps and their
end-to-end encrypted push registrations (actions/users/devices.py)."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.users.reads.devices import DeviceInfo, devices_state
from chalicelib.core.feature_levels import withheld
from chalicelib.registration.state.context import StateContext


class DevicesState(TypedDict, total=False):
    """Present when `device` is among the fetch types (from level 468)."""

    devices: dict[str, DeviceInfo]


def user_devices_state(ctx: StateContext) -> DevicesState:
    if "devices" in withheld("register"):
        return {}   # below level 468: not sent, so not read
    return {"devices": devices_state(ctx.caller.realm_id, ctx.caller.user_id)}
