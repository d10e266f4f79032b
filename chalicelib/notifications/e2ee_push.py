"""Delivering end-to-end encrypted notifications (the reference's mobile-notifications
formats since level 413, with level 468's push_key_id): the payload is sealed for the
device's push key (rules/push_crypto.py) and sent through the device's SNS endpoint.

FCM gets `push_key_id` (as a string, FCM's data being strings) and `encrypted_data`;
APNs the same with a visible placeholder alert that the app replaces once it has
decrypted the payload (a notification service extension), or a silent push for removals.
"""
from __future__ import annotations

import json
import time
from typing import Any, Literal, NotRequired, TypedDict

from chalicelib import config
from chalicelib.actions.users.devices import access_device
from chalicelib.actions.users.reads.devices import client_devices
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.models.notifications import ClientDevice
from chalicelib.models.realms import Realm
from chalicelib.notifications.email_render import MissedMessage
from chalicelib.notifications.push import CONTENT_PREVIEW, publish_to_endpoint
from chalicelib.rules.avatars import gravatar_url
from chalicelib.rules.push_crypto import b64decode_strict, seal_notification

PLACEHOLDER_TITLE = "New notification"


class E2eePayload(TypedDict):
    """What is encrypted for the device (the reference's field names)."""

    type: Literal["message", "remove", "test"]
    realm_url: str
    realm_name: str
    user_id: int
    message_id: NotRequired[int]
    message_ids: NotRequired[list[int]]
    time: NotRequired[int]
    content: NotRequired[str]
    sender_id: NotRequired[int]
    sender_full_name: NotRequired[str]
    sender_avatar_url: NotRequired[str]
    recipient_type: NotRequired[Literal["channel", "direct"]]
    channel_id: NotRequired[int]
    channel_name: NotRequired[str]
    topic: NotRequired[str]
    recipient_user_ids: NotRequired[list[int]]


def e2ee_devices(realm_id: int, user_id: int) -> list[ClientDevice]:
    """The user's devices with a working end-to-end encrypted registration."""
    return [d for d in client_devices(realm_id, user_id)
            if d.endpoint_arn and d.push_key and d.push_key_id is not None
            and d.push_token_id]


def identity(realm: Any, user_id: int) -> E2eePayload:
    """The fields every payload starts with (its `type` is set by the caller)."""
    return {"type": "message", "realm_url": config.realm_url(realm.subdomain),
            "realm_name": realm.name, "user_id": user_id}


def message_payload(realm: Any, user_id: int, message: MissedMessage) -> E2eePayload:
    payload: E2eePayload = {
        **identity(realm, user_id), "message_id": message.message_id,
        "time": message.date_sent, "content": message.content[:CONTENT_PREVIEW],
        "sender_id": message.sender_id, "sender_full_name": message.sender_name,
        "sender_avatar_url": gravatar_url(message.sender_email, 1)}
    if message.type == "stream":
        payload.update({"recipient_type": "channel", "channel_id": message.stream_id or 0,
                        "channel_name": message.stream_name, "topic": message.topic})
    else:
        payload.update({"recipient_type": "direct",
                        "recipient_user_ids": sorted(message.participant_ids)})
    return payload


def removal_payload(realm: Any, user_id: int, message_ids: list[int]) -> E2eePayload:
    return {**identity(realm, user_id), "type": "remove",
            "message_ids": sorted(message_ids)}


def test_payload(realm: Any, user_id: int) -> E2eePayload:
    return {**identity(realm, user_id), "type": "test", "time": int(time.time())}


def publish_e2ee(device: ClientDevice, payload: E2eePayload) -> bool:
    """Sends the payload, sealed for the device; False if SNS says the endpoint is gone
    (the device keeps its key; its app registers a token again)."""
    key = b64decode_strict(str(device.push_key))
    assert key is not None  # nosec B101 # checked when registered (e2ee.check_push_key)
    sealed = seal_notification(key, dict(payload))
    key_id = int(device.push_key_id or 0)
    apns: dict[str, Any] = {"push_key_id": key_id, "encrypted_data": sealed}
    apns["aps"] = {"content-available": 1} if payload["type"] == "remove" else {
        "mutable-content": 1, "alert": {"title": PLACEHOLDER_TITLE}, "sound": "default"}
    fcm = {"data": {"push_key_id": str(key_id), "encrypted_data": sealed},
           "priority": "high"}
    message = json.dumps({"default": PLACEHOLDER_TITLE, "APNS": json.dumps(apns),
                          "APNS_SANDBOX": json.dumps(apns), "GCM": json.dumps(fcm)})
    if not publish_to_endpoint(str(device.endpoint_arn), message):
        logger.info("e2ee push endpoint gone", extra={"device_id": device.device_id})
        return False
    if config.local_mail_dir():   # the local stack: say that a phone was reached
        print(f"[push] e2ee {payload['type']} to device {device.device_id} of user "
              f"{payload['user_id']}", flush=True)
    return True


def do_e2ee_test_notification(caller: Principal, device_id: int | None) -> EmptyResult:
    """POST /mobile_push/e2ee/test_notification: a test to one of the caller's devices
    (device_id, level 468) or to each of them."""
    devices = e2ee_devices(caller.realm_id, caller.user_id)
    if device_id is not None:
        access_device(caller, device_id)   # another's, or none: "Invalid device_id"
        devices = [d for d in devices if int(d.device_id) == device_id]
    if not devices:
        raise ApiError("No device is registered for end-to-end encrypted notifications.")
    realm = Realm.get(caller.realm_id)
    for device in devices:
        publish_e2ee(device, test_payload(realm, caller.user_id))
    return {}
