"""The unsubscribe link of missed-message emails: turns the setting off without signing
in (GET from the email's link, POST from a mail client's one-click button, RFC 8058)."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.users.settings import do_update_settings
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.users import User
from chalicelib.notifications.tokens import EMAIL_TYPES, read_token


class EmailUnsubscribeResult(TypedDict):
    email_type: str
    setting: str


def do_unsubscribe(email_type: str, token: str) -> EmailUnsubscribeResult:
    found = read_token(token)
    if found is None or found.email_type != email_type:
        raise ApiError("This unsubscribe link is not valid.")
    user = User.get_or_none(found.realm_id, found.user_id)
    if user is None or not user.is_active:
        raise ApiError("This unsubscribe link is not valid.")
    setting = EMAIL_TYPES[email_type]
    caller = Principal(realm_id=user.realm_id, user_id=user.user_id, email=user.email,
                       role=int(user.role), is_bot=bool(user.is_bot))
    do_update_settings(caller, {setting: False})   # with its user_settings event
    return {"email_type": email_type, "setting": setting}
