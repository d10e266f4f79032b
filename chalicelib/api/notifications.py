"""Notifications for people who are away: phones for push (POST/DELETE
/users/me/apns_device_token and /users/me/android_gcm_reg_id, POST
/mobile_push/test_notification) and the email's unsubscribe link (public)."""
from __future__ import annotations

from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.notifications.push import (
    do_add_push_device,
    do_remove_push_device,
    do_test_notification,
)
from chalicelib.notifications.unsubscribe import EmailUnsubscribeResult, do_unsubscribe

bp = ApiBlueprint(__name__)


@bp.endpoint("/users/me/apns_device_token", "POST")
def add_apns_token(caller: Principal, *, token: str, appid: str) -> EmptyResult:
    return do_add_push_device(caller, "apns", token, appid)


@bp.endpoint("/users/me/apns_device_token", "DELETE")
def remove_apns_token(caller: Principal, *, token: str) -> EmptyResult:
    return do_remove_push_device(caller, "apns", token)


@bp.endpoint("/users/me/android_gcm_reg_id", "POST")
def add_fcm_token(caller: Principal, *, token: str) -> EmptyResult:
    return do_add_push_device(caller, "fcm", token)


@bp.endpoint("/users/me/android_gcm_reg_id", "DELETE")
def remove_fcm_token(caller: Principal, *, token: str) -> EmptyResult:
    return do_remove_push_device(caller, "fcm", token)


@bp.endpoint("/mobile_push/test_notification", "POST")
def test_notify(caller: Principal, *, token: str | None = None) -> EmptyResult:
    return do_test_notification(caller, token)


links = ApiBlueprint(__name__ + ".links")


@links.endpoint("/accounts/unsubscribe/{email_type}/{token}", "GET", public=True)
def unsubscribe_from_emails(*, email_type: str, token: str) -> EmailUnsubscribeResult:
    return do_unsubscribe(email_type, token)


@links.endpoint("/accounts/unsubscribe/{email_type}/{token}", "POST", public=True)
def unsubscribe_from_emails_one_click(*, email_type: str, token: str) -> EmailUnsubscribeResult:
    return do_unsubscribe(email_type, token)
