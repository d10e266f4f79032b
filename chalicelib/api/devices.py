"""Logged-in mobile devices and their end-to-end encrypted push (levels 468, 470): POST
/register_client_device, POST /remove_client_device, POST /mobile_push/register, POST
/mobile_push/e2ee/test_notification."""
from __future__ import annotations

from typing import Annotated

from chalicelib.actions.users.devices import (
    RegisterClientDeviceResult,
    do_register_client_device,
    do_remove_client_device,
)
from chalicelib.actions.users.push_registration import check_request, record_or_retry
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import ApiParam
from chalicelib.notifications.e2ee_push import do_e2ee_test_notification

bp = ApiBlueprint(__name__)


@bp.endpoint("/register_client_device", "POST")
def register_client_device(caller: Principal) -> RegisterClientDeviceResult:
    return do_register_client_device(caller)


@bp.endpoint("/remove_client_device", "POST")
def remove_client_device(caller: Principal, *, device_id: int) -> EmptyResult:
    do_remove_client_device(caller, device_id)
    return {}


@bp.endpoint("/mobile_push/register", "POST")
def register_push_device(
        caller: Principal, *, device_id: int, push_key_id: int | None = None,
        push_key: Annotated[str | None, ApiParam(max_length=100)] = None,
        token_kind: Annotated[str | None, ApiParam(max_length=10)] = None,
        token_id: Annotated[str | None, ApiParam(max_length=100)] = None,
        bouncer_public_key: Annotated[str | None, ApiParam(max_length=100)] = None,
        encrypted_push_registration: Annotated[str | None, ApiParam(max_length=10_000)]
        = None) -> EmptyResult:
    """The push key's fields, the token's fields, or both (the first registration);
    each group alone rotates the key or the token."""
    key, token = check_request(push_key_id, push_key, token_kind, token_id,
                               bouncer_public_key, encrypted_push_registration)
    return record_or_retry(caller, device_id, key, token)


@bp.endpoint("/mobile_push/e2ee/test_notification", "POST")
def e2ee_test_notify(caller: Principal, *, device_id: int | None = None) -> EmptyResult:
    return do_e2ee_test_notification(caller, device_id)
