"""Mobile push through Amazon SNS mobile push: devices, their endpoints, the payloads.

A registered phone is a PushDevice item in its user's partition holding the SNS platform
endpoint made for its token (platform applications for APNs and FCM come from the
template, config.sns_*_platform_arn). A publish to an endpoint that SNS disabled (the
token expired or the app was removed) forgets the device.
"""
from __future__ import annotations

import json
import time
from typing import Any, Literal, TypedDict

from botocore.exceptions import ClientError

from chalicelib import config
from chalicelib.aws import aws_clients
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError, ErrorCode
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.models.notifications import (
    DEVICE_PREFIX,
    PushDevice,
    device_item,
    owner_key,
)
from chalicelib.models.realms import Realm

Kind = Literal["apns", "fcm"]
MAX_TOKEN_LENGTH = 4096
CONTENT_PREVIEW = 200
# What a legacy notification shows when the organization requires end-to-end encrypted
# push (level 409): no content leaves the server in clear.
REDACTED = "New message"
# Fields the APNs payload no longer carries (unused by the apps): "time" from level 410,
# "server" and "realm_id" from level 413; FCM keeps them.
APNS_DROPPED = (("time", 410), ("server", 413), ("realm_id", 413))
GONE_ENDPOINT_CODES = {"EndpointDisabled", "NotFound", "InvalidParameter"}


class PushPayload(TypedDict, total=False):
    event: str
    server: str
    realm_id: int
    realm_name: str
    realm_url: str
    user_id: int
    zulip_message_id: int
    zulip_message_ids: str
    sender_id: int
    sender_full_name: str
    recipient_type: str
    stream: str
    stream_id: int
    topic: str
    pm_users: str
    content: str
    time: int
    alert: str


def _platform_arn(kind: Kind) -> str:
    return config.sns_apns_platform_arn() if kind == "apns" else config.sns_fcm_platform_arn()


def check_token(kind: Kind, token: str) -> None:
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise ApiError("The device token is empty or of the wrong length")
    if kind == "apns":
        try:
            bytes.fromhex(token)
        except ValueError:
            raise ApiError("That is not an APNs device token") from None


def do_add_push_device(caller: Principal, kind: Kind, token: str,
                       appid: str | None = None) -> EmptyResult:
    """Registers a phone: an SNS endpoint for its token (the same token again is a no-op)."""
    check_token(kind, token)
    platform_arn = _platform_arn(kind)
    if not platform_arn:
        raise ApiError("Push notifications are not configured on this server.")
    owner = owner_key(caller.realm_id, caller.user_id)
    if PushDevice.get_or_none(owner, device_item(kind, token)) is not None:
        return {}
    endpoint = aws_clients.sns().create_platform_endpoint(
        PlatformApplicationArn=platform_arn, Token=token, CustomUserData=owner)["EndpointArn"]
    PushDevice(owner, device_item(kind, token), kind=kind, token=token, appid=appid,
               endpoint_arn=endpoint, created_ms=int(time.time() * 1000)).save()
    return {}


def do_remove_push_device(caller: Principal, kind: Kind, token: str) -> EmptyResult:
    check_token(kind, token)
    device = PushDevice.get_or_none(owner_key(caller.realm_id, caller.user_id),
                                    device_item(kind, token))
    if device is None:
        raise ApiError("That device token is not registered")
    forget(device)
    return {}


def devices_of(realm_id: int, user_id: int) -> list[PushDevice]:
    return list(PushDevice.query(owner_key(realm_id, user_id),
                                 PushDevice.item.startswith(DEVICE_PREFIX)))


def forget(device: PushDevice) -> None:
    """Deletes the device and its SNS endpoint (already gone is fine)."""
    device.delete()
    try:
        aws_clients.sns().delete_endpoint(EndpointArn=device.endpoint_arn)
    except ClientError:
        logger.warning("endpoint already gone", extra={"kind": device.kind})


def publish_to_endpoint(endpoint_arn: str, message: str) -> bool:
    """Publishes an SNS message (one body per platform) to a phone's endpoint; False if
    SNS says the endpoint is disabled or gone (the caller forgets or keeps the device)."""
    try:
        aws_clients.sns().publish(TargetArn=endpoint_arn, Message=message,
                                  MessageStructure="json")
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in GONE_ENDPOINT_CODES:
            return False
        raise
    return True


def publish(device: PushDevice, payload: PushPayload) -> bool:
    """Sends the payload to one phone; False (and the device forgotten) if SNS says the
    endpoint is disabled or gone."""
    alert = str(payload.get("alert", ""))
    data = {k: v for k, v in payload.items() if k != "alert"}
    apns_data = {k: v for k, v in data.items() if not any(
        k == name and level_reached(level) for name, level in APNS_DROPPED)}
    apns: dict[str, Any] = {"aps": {"alert": {"title": payload.get("sender_full_name", ""),
                                              "body": alert}, "sound": "default"},
                            "zulip": apns_data}
    if payload.get("event") == "remove":
        apns = {"aps": {"content-available": 1}, "zulip": apns_data}
    message = json.dumps({"default": alert or str(payload.get("event", "")),
                          "APNS": json.dumps(apns), "APNS_SANDBOX": json.dumps(apns),
                          "GCM": json.dumps({"data": data, "priority": "high"})})
    if not publish_to_endpoint(str(device.endpoint_arn), message):
        logger.info("push endpoint disabled: device forgotten", extra={"kind": device.kind})
        forget(device)
        return False
    if config.local_mail_dir():   # the local stack: say what a phone would show
        print(f"[push] {payload.get('event')} to {device.kind} device of user "
              f"{payload.get('user_id')}: {alert[:60]!r}", flush=True)
    return True


def base_payload(realm: Any, user_id: int) -> PushPayload:
    return {"server": config.root_domain(), "realm_id": int(realm.realm_id),
            "realm_name": realm.name, "realm_url": config.realm_url(realm.subdomain),
            "user_id": user_id}


def do_test_notification(caller: Principal, token: str | None) -> EmptyResult:
    devices = devices_of(caller.realm_id, caller.user_id)
    if token is not None:
        devices = [d for d in devices if d.token == token]
    if not devices:
        raise ApiError("This device is not registered", code=ErrorCode.INVALID_PUSH_DEVICE_TOKEN)
    realm = Realm.get(caller.realm_id)
    payload: PushPayload = {**base_payload(realm, caller.user_id), "event": "test",
                            "alert": "This is a test notification."}
    for device in devices:
        publish(device, payload)
    return {}
