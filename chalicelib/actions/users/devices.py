"""Client devices (levels 468-492): POST /register_client_device, POST
/remove_client_device, POST /mobile_push/register, the `devices` state and the `device`
events, and what ends a device's push registration.

A device registers its push key and its token (sealed to this server's key,
rules/push_crypto.py). This server is its own push service: it opens the token itself
and makes the device an SNS endpoint at once, so the reference's two-step answer (the
token pending, then registered or refused) comes from one request, both `device` update
events in the transaction that records the outcome. A successful registration removes
the user's legacy registration of the same token (level 483).
"""
from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from botocore.exceptions import ClientError
from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.users.reads.devices import client_devices
from chalicelib.aws import aws_clients
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.ids import allocate_id
from chalicelib.models.notifications import (
    ClientDevice,
    client_device_item,
    owner_key,
)

MAX_DEVICES_PER_USER = 100


class RegisterClientDeviceResult(TypedDict):
    device_id: int


class DeviceAddEvent(TypedDict):
    type: Literal["device"]
    op: Literal["add"]
    device_id: int


class DeviceRemoveEvent(TypedDict):
    type: Literal["device"]
    op: Literal["remove"]
    device_id: int


class DeviceUpdateEvent(TypedDict):
    """What changed of a device: only the keys named here changed."""

    type: Literal["device"]
    op: Literal["update"]
    device_id: int
    push_key_id: NotRequired[int]
    push_token_id: NotRequired[str | None]
    pending_push_token_id: NotRequired[str | None]
    push_token_last_updated_timestamp: NotRequired[int]
    push_registration_error_code: NotRequired[str | None]


def do_register_client_device(caller: Principal) -> RegisterClientDeviceResult:
    owner = owner_key(caller.realm_id, caller.user_id)
    if len(client_devices(caller.realm_id, caller.user_id)) >= MAX_DEVICES_PER_USER:
        raise ApiError(f"At most {MAX_DEVICES_PER_USER} devices may be registered: "
                       "remove one first.")
    device_id = allocate_id(caller.realm_id, "device")
    added: DeviceAddEvent = {"type": "device", "op": "add", "device_id": device_id}
    with transaction() as tx:
        tx.save(ClientDevice(owner, client_device_item(device_id), device_id=device_id),
                condition=ClientDevice.item.does_not_exist())
        add_event(tx, caller.realm_id, added, to_users([caller.user_id]))
    return {"device_id": device_id}


def access_device(caller: Principal, device_id: int) -> ClientDevice:
    """The caller's own device; another's or none look the same."""
    device = ClientDevice.get_or_none(owner_key(caller.realm_id, caller.user_id),
                                      client_device_item(device_id), consistent_read=True)
    if device is None:
        raise ApiError("Invalid device_id")
    return device


def do_remove_client_device(caller: Principal, device_id: int) -> None:
    device = access_device(caller, device_id)
    remove_devices(caller.realm_id, caller.user_id, [device])


def remove_devices(realm_id: int, user_id: int, devices: list[ClientDevice]) -> None:
    """Deletes the devices (each with its `device` remove event) and their endpoints; a
    device already gone meanwhile is skipped."""
    for device in devices:
        removed: DeviceRemoveEvent = {"type": "device", "op": "remove",
                                      "device_id": int(device.device_id)}
        try:
            with transaction() as tx:
                tx.delete(device, condition=ClientDevice.item.exists())
                add_event(tx, realm_id, removed, to_users([user_id]))
        except TransactWriteError as error:
            if not is_condition_failure(error):
                raise
            continue
        delete_endpoint(device.endpoint_arn)


def forget_push_registrations(realm_id: int, user_id: int) -> None:
    """The user's API key changed (level 492): their devices' push registrations end
    with it, as the devices themselves."""
    remove_devices(realm_id, user_id, client_devices(realm_id, user_id))


def delete_endpoint(endpoint_arn: str | None) -> None:
    if endpoint_arn:
        try:
            aws_clients.sns().delete_endpoint(EndpointArn=endpoint_arn)
        except ClientError:
            logger.warning("device endpoint already gone")


def platform_arn(kind: str) -> str:
    return config.sns_apns_platform_arn() if kind == "apns" else config.sns_fcm_platform_arn()
