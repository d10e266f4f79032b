"""Bots: generic, incoming-webhook and outgoing-webhook bots (with a fixed token)."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from chalicelib.actions.users import NewUser, do_create_user, get_own_user
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError
from chalicelib.lib.avatars import gravatar_url
from chalicelib.lib.secrets import random_alphanumeric
from chalicelib.lib.url_safety import UnsafeUrlError, check_url_syntax
from chalicelib.models.users import User, bot_owner_key

BOT_TYPE_GENERIC = 1
BOT_TYPE_INCOMING_WEBHOOK = 2
BOT_TYPE_OUTGOING_WEBHOOK = 3
BOT_TYPES = {BOT_TYPE_GENERIC, BOT_TYPE_INCOMING_WEBHOOK, BOT_TYPE_OUTGOING_WEBHOOK}
INTERFACE_GENERIC = 1
INTERFACE_SLACK = 2
SHORT_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")


def do_create_bot(realm_id: int, owner: User, full_name: str, short_name: str,
                  service_url: str | None = None, *, bot_type: int | None = None,
                  interface: int = INTERFACE_GENERIC) -> tuple[User, str]:
    """Creates a bot owned by `owner`; with a URL it is an outgoing-webhook bot."""
    short_name = short_name.strip().lower()
    if not SHORT_NAME_RE.match(short_name):
        raise ApiError("Bad name or username: use lowercase letters, digits, '.', '_' or '-'.")
    if bot_type is None:
        bot_type = BOT_TYPE_OUTGOING_WEBHOOK if service_url else BOT_TYPE_GENERIC
    if bot_type not in BOT_TYPES:
        raise ApiError("Invalid bot type")
    if interface not in (INTERFACE_GENERIC, INTERFACE_SLACK):
        raise ApiError("Invalid interface type")
    domain = owner.delivery_email.rsplit("@", 1)[-1]
    new = NewUser(email=f"{short_name}-bot@{domain}", full_name=full_name, is_bot=True,
                  bot_type=bot_type, bot_owner_id=owner.user_id)
    if bot_type == BOT_TYPE_OUTGOING_WEBHOOK:
        if not service_url:
            raise ApiError("An outgoing webhook bot needs a payload_url")
        try:
            url = check_url_syntax(service_url)
        except UnsafeUrlError as error:
            raise ApiError(f"Invalid outgoing webhook URL: {error}") from None
        new = replace(new, service_url=url, service_token=random_alphanumeric(32),
                      service_interface=interface)
    return do_create_user(realm_id, new)


def check_create_bot(caller: Principal, *, full_name: str, short_name: str, bot_type: int,
                     payload_url: str | None, interface_type: int) -> dict[str, Any]:
    if caller.is_guest:
        raise ApiError("Guests cannot create bots")
    if caller.is_bot:
        raise ApiError("Bots cannot create bots")
    owner = get_own_user(caller)
    bot, api_key = do_create_bot(caller.realm_id, owner, full_name, short_name, payload_url,
                                 bot_type=bot_type, interface=interface_type)
    return {"user_id": bot.user_id, "api_key": api_key,
            "avatar_url": gravatar_url(bot.delivery_email, bot.avatar_version),
            "default_sending_stream": None, "default_events_register_stream": None,
            "default_all_public_streams": False}


def bot_dict(bot: User) -> dict[str, Any]:
    services = []
    if bot.bot_type == BOT_TYPE_OUTGOING_WEBHOOK and bot.service_url:
        services = [{"base_url": bot.service_url, "interface": bot.service_interface or 1,
                     "token": bot.service_token}]
    return {"user_id": bot.user_id, "username": bot.email, "email": bot.email,
            "full_name": bot.full_name, "bot_type": bot.bot_type, "is_active": bot.is_active,
            "owner_id": bot.bot_owner_id,
            "avatar_url": gravatar_url(bot.delivery_email, bot.avatar_version),
            "default_sending_stream": None, "default_events_register_stream": None,
            "default_all_public_streams": False, "services": services}


def get_own_bots(caller: Principal) -> list[dict[str, Any]]:
    """The caller's bots (one index query), with their outgoing-webhook tokens."""
    return [bot_dict(b) for b in
            User.by_bot_owner.query(bot_owner_key(caller.realm_id, caller.user_id))]
