"""POST /mobile_push/register (level 468's design): a device's push key, its token, or
both, each changed only when it differs from what the device has.

The token is opened and its SNS endpoint made before anything is written; then one
transaction records the device, tells its owner's clients (`device` update events: the
token pending, then registered or refused, as the reference's two steps), and deletes
the user's legacy registration of the same token (level 483). A registration the server
cannot take (another server's key, an unreadable or stale registration) is no error of
the request: the device says why in push_registration_error_code, as the reference's
does once its push service answered.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.update import Action

from chalicelib import config
from chalicelib.actions.users.devices import (
    DeviceUpdateEvent,
    access_device,
    delete_endpoint,
    platform_arn,
)
from chalicelib.aws import aws_clients
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.notifications import ClientDevice, PushDevice, device_item, owner_key
from chalicelib.rules import push_crypto as e2ee

NOT_CONFIGURED = "Push notifications are not configured on this server."


@dataclass(frozen=True)
class PushKey:
    key_id: int
    key: str          # Base64, as given (checked)


@dataclass(frozen=True)
class PushToken:
    kind: str
    token_id: str
    bouncer_public_key: str
    sealed: str


def check_request(push_key_id: int | None, push_key: str | None, token_kind: str | None,
                  token_id: str | None, bouncer_public_key: str | None,
                  encrypted_push_registration: str | None
                  ) -> tuple[PushKey | None, PushToken | None]:
    """The key fields and the token fields, each all given or all absent (at least one
    group), each checked before anything is read."""
    key_fields = (push_key_id, push_key)
    token_fields = (token_kind, token_id, bouncer_public_key, encrypted_push_registration)
    has_key, has_token = None not in key_fields, None not in token_fields
    if (not has_key and any(f is not None for f in key_fields)) or (
            not has_token and any(f is not None for f in token_fields)) or not (
            has_key or has_token):
        raise ApiError("Missing parameters: give all of the push key's fields, all of the "
                       "token's, or both.")
    key = token = None
    if push_key_id is not None and push_key is not None:
        if not 0 <= push_key_id <= e2ee.MAX_PUSH_KEY_ID:
            raise ApiError("Invalid push_key_id: not an unsigned 32-bit integer")
        if e2ee.check_push_key(push_key) is None:
            raise ApiError("Invalid push_key")
        key = PushKey(push_key_id, push_key)
    if token_kind is not None and token_id is not None and bouncer_public_key is not None \
            and encrypted_push_registration is not None:
        if token_kind not in ("fcm", "apns"):
            raise ApiError("Invalid token_kind")
        decoded = e2ee.b64decode_strict(token_id)
        if decoded is None or len(decoded) != e2ee.TOKEN_ID_BYTES:
            raise ApiError("token_id is not Base64 encoded")
        token = PushToken(token_kind, token_id, bouncer_public_key,
                          encrypted_push_registration)
    return key, token


def do_register_push_device(caller: Principal, device_id: int, key: PushKey | None,
                            token: PushToken | None) -> EmptyResult:
    if not (config.sns_fcm_platform_arn() or config.sns_apns_platform_arn()):
        raise ApiError(NOT_CONFIGURED)
    device = access_device(caller, device_id)
    if device.push_key is None:
        if key is None:
            raise ApiError("No push registration exists to rotate the token for.")
        if token is None:
            raise ApiError("No push registration exists to rotate the key for.")
    new_key = key if key is not None and (key.key, key.key_id) != (
        device.push_key, device.push_key_id) else None
    new_token = token if token is not None and not (
        token.token_id == device.push_token_id and device.pending_push_token_id is None
        and device.push_registration_error_code is None) else None
    if new_key is None and new_token is None:
        return {}   # as registered already: nothing changes, nothing is told
    _record(caller, device, new_key, new_token)
    return {}


@dataclass
class _Outcome:
    actions: list[Action]
    events: list[DeviceUpdateEvent]
    endpoint_arn: str | None = None
    legacy: PushDevice | None = None


def _record(caller: Principal, device: ClientDevice, key: PushKey | None,
            token: PushToken | None) -> None:
    first: DeviceUpdateEvent = {"type": "device", "op": "update",
                                "device_id": int(device.device_id)}
    outcome = _Outcome([ClientDevice.version.set(int(device.version) + 1)], [first])
    if key is not None:
        outcome.actions += [ClientDevice.push_key.set(key.key),
                            ClientDevice.push_key_id.set(key.key_id)]
        first["push_key_id"] = key.key_id
    if token is not None:
        _take_token(caller, token, first, outcome)
    with transaction() as tx:
        tx.update(device, actions=outcome.actions,
                  condition=ClientDevice.version == int(device.version))
        for event in outcome.events:
            add_event(tx, caller.realm_id, event, to_users([caller.user_id]))
        if outcome.legacy is not None:
            tx.delete(outcome.legacy)
    if outcome.endpoint_arn and device.endpoint_arn != outcome.endpoint_arn:
        delete_endpoint(device.endpoint_arn)   # the device's previous token's
    if outcome.legacy is not None and outcome.legacy.endpoint_arn != outcome.endpoint_arn:
        delete_endpoint(outcome.legacy.endpoint_arn)


def record_or_retry(caller: Principal, device_id: int, key: PushKey | None,
                    token: PushToken | None) -> EmptyResult:
    """do_register_push_device, told apart from a concurrent change of the device."""
    try:
        return do_register_push_device(caller, device_id, key, token)
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError("The device changed meanwhile; try again.") from None
        raise


def _take_token(caller: Principal, token: PushToken, first: DeviceUpdateEvent,
                outcome: _Outcome) -> None:
    """Opens the token and makes its endpoint; what the device then says, and the two
    events (pending, then the outcome)."""
    now = int(time.time())
    first.update({"pending_push_token_id": token.token_id,
                  "push_token_last_updated_timestamp": now,
                  "push_registration_error_code": None})
    second: DeviceUpdateEvent = {"type": "device", "op": "update",
                                 "device_id": first["device_id"]}
    outcome.events.append(second)
    outcome.actions += [ClientDevice.push_token_updated.set(now),
                        ClientDevice.push_token_kind.set(token.kind)]
    platform = platform_arn(token.kind)
    try:
        if not platform:
            raise ApiError(NOT_CONFIGURED)
        registration = e2ee.open_registration(token.bouncer_public_key, token.sealed,
                                              token.kind, token.token_id)
    except e2ee.PushRegistrationError as refused:
        second["push_registration_error_code"] = refused.code
        outcome.actions += [ClientDevice.pending_push_token_id.set(token.token_id),
                            ClientDevice.push_registration_error_code.set(refused.code)]
        return
    owner = owner_key(caller.realm_id, caller.user_id)
    outcome.endpoint_arn = aws_clients.sns().create_platform_endpoint(
        PlatformApplicationArn=platform, Token=registration.token,
        CustomUserData=owner)["EndpointArn"]
    outcome.legacy = PushDevice.get_or_none(owner, device_item(token.kind,
                                                               registration.token))
    second.update({"push_token_id": token.token_id,  # nosec B105 # a token's id, no secret
                   "pending_push_token_id": None})
    outcome.actions += [ClientDevice.push_token_id.set(token.token_id),
                        ClientDevice.pending_push_token_id.remove(),
                        ClientDevice.push_registration_error_code.remove(),
                        ClientDevice.endpoint_arn.set(outcome.endpoint_arn)]
