"""A user's client devices as the API shows them (POST /register's devices); registering
and removing them is actions/users/devices.py.
"""
from __future__ import annotations

from typing import TypedDict

from chalicelib.models.notifications import CLIENT_DEVICE_PREFIX, ClientDevice, owner_key


class DeviceInfo(TypedDict):
    """A device as POST /register's `devices` shows it (its owner alone sees it)."""

    push_key_id: int | None
    push_token_id: str | None
    pending_push_token_id: str | None
    push_token_last_updated_timestamp: int | None
    push_registration_error_code: str | None


def device_info(device: ClientDevice) -> DeviceInfo:
    return {"push_key_id": device.push_key_id, "push_token_id": device.push_token_id,
            "pending_push_token_id": device.pending_push_token_id,
            "push_token_last_updated_timestamp": device.push_token_updated,
            "push_registration_error_code": device.push_registration_error_code}


def client_devices(realm_id: int, user_id: int) -> list[ClientDevice]:
    """The user's devices, oldest first (one Query of their partition)."""
    return list(ClientDevice.query(owner_key(realm_id, user_id),
                                   ClientDevice.item.startswith(CLIENT_DEVICE_PREFIX)))


def devices_state(realm_id: int, user_id: int) -> dict[str, DeviceInfo]:
    return {str(d.device_id): device_info(d) for d in client_devices(realm_id, user_id)}
