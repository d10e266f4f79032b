"""Bots: generic bots and outgoing-webhook bots with a fixed token."""
from __future__ import annotations

import re

from chalicelib.actions.users import NewUser, do_create_user
from chalicelib.http.errors import ApiError
from chalicelib.lib.secrets import random_alphanumeric
from chalicelib.lib.url_safety import UnsafeUrlError, check_url_syntax
from chalicelib.models.users import User

BOT_TYPE_GENERIC = 1
BOT_TYPE_OUTGOING_WEBHOOK = 3
INTERFACE_GENERIC = 1
SHORT_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")


def do_create_bot(realm_id: int, owner: User, full_name: str, short_name: str,
                  service_url: str | None = None) -> tuple[User, str]:
    """Creates a bot owned by `owner`; with a URL it is an outgoing-webhook bot."""
    short_name = short_name.strip().lower()
    if not SHORT_NAME_RE.match(short_name):
        raise ApiError("Bad name or username: use lowercase letters, digits, '.', '_' or '-'.")
    domain = owner.delivery_email.rsplit("@", 1)[-1]
    new = NewUser(email=f"{short_name}-bot@{domain}", full_name=full_name, is_bot=True,
                  bot_type=BOT_TYPE_GENERIC, bot_owner_id=owner.user_id)
    if service_url is not None:
        try:
            url = check_url_syntax(service_url)
        except UnsafeUrlError as error:
            raise ApiError(f"Invalid outgoing webhook URL: {error}") from None
        new = NewUser(email=new.email, full_name=full_name, is_bot=True,
                      bot_type=BOT_TYPE_OUTGOING_WEBHOOK, bot_owner_id=owner.user_id,
                      service_url=url, service_token=random_alphanumeric(32),
                      service_interface=INTERFACE_GENERIC)
    return do_create_user(realm_id, new)
