"""Bots: generic, incoming-webhook and outgoing-webhook bots (with a fixed token)."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal, TypedDict

from pynamodb.transactions import TransactWrite

from chalicelib.actions.groups.reads.user_groups import require_member_or_admin
from chalicelib.actions.users.reads.bots import BotDict, bot_dict
from chalicelib.actions.users.users import NewUser, do_create_user, get_own_user
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.integrations import find_integration
from chalicelib.models.users import (
    BOT_TYPE_GENERIC,
    BOT_TYPE_INCOMING_WEBHOOK,
    BOT_TYPE_OUTGOING_WEBHOOK,
    BOT_TYPES,
    User,
    bot_owner_key,
    get_user_by_email,
    name_key,
    user_avatar_url,
)
from chalicelib.rules.secrets import random_alphanumeric
from chalicelib.rules.url_safety import UnsafeUrlError, check_url_syntax
from chalicelib.rules.webhook_interfaces import INTERFACE_GENERIC, INTERFACES


class CreateBotResult(TypedDict):
    user_id: int
    api_key: str
    avatar_url: str
    default_sending_stream: None
    default_events_register_stream: None
    default_all_public_streams: Literal[False]


SHORT_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")
SERVICE_TOKEN_LENGTH = 32
MAX_CONFIG_VALUE_LENGTH = 200
# A bot's configuration keys when it names no integration: its webhook's secret only.
GENERIC_CONFIG_KEYS = frozenset({"webhook_secret"})


def incoming_webhook_config(service_name: str | None,
                            config_data: dict[str, str] | None) -> dict[str, str] | None:
    """An incoming-webhook bot's stored configuration: the integration it serves (if
    named) and the values of that integration's configuration options (each optional,
    e.g. the secret GitHub signs its requests with)."""
    config: dict[str, str] = {}
    allowed = GENERIC_CONFIG_KEYS
    if service_name is not None:
        integration = find_integration(service_name)
        if integration is None:
            raise ApiError(f"'{service_name[:100]}' is not an integration this server knows.")
        config["integration_id"] = integration.name
        allowed = frozenset(option.key for option in integration.config_options)
    for key, value in (config_data or {}).items():
        if key not in allowed:
            raise ApiError(f"Invalid configuration parameter '{key[:100]}': this "
                           f"integration takes {', '.join(sorted(allowed)) or 'none'}.")
        if not value or len(value) > MAX_CONFIG_VALUE_LENGTH:
            raise ApiError(f"Configuration parameter '{key}' must have 1 to "
                           f"{MAX_CONFIG_VALUE_LENGTH} characters.")
        config[key] = value
    return config or None


def do_create_bot(realm_id: int, owner: User, full_name: str, short_name: str,
                  service_url: str | None = None, *, bot_type: int | None = None,
                  interface: int = INTERFACE_GENERIC, service_name: str | None = None,
                  config_data: dict[str, str] | None = None) -> tuple[User, str]:
    """Creates a bot owned by `owner`; with a URL it is an outgoing-webhook bot. An
    incoming-webhook bot may name its integration and configure it (`config_data`)."""
    short_name = short_name.strip().lower()
    if not SHORT_NAME_RE.match(short_name):
        raise ApiError("Bad name or username: use lowercase letters, digits, '.', '_' or '-'.")
    if bot_type is None:
        bot_type = BOT_TYPE_OUTGOING_WEBHOOK if service_url else BOT_TYPE_GENERIC
    if bot_type not in BOT_TYPES:
        raise ApiError("Unknown bot type")
    if interface not in INTERFACES:
        raise ApiError("Unknown outgoing-webhook interface type")
    domain = owner.delivery_email.rsplit("@", 1)[-1]
    new = NewUser(email=f"{short_name}-bot@{domain}", full_name=full_name, is_bot=True,
                  bot_type=bot_type, bot_owner_id=owner.user_id)
    if bot_type == BOT_TYPE_INCOMING_WEBHOOK:
        new = replace(new, bot_config=incoming_webhook_config(service_name, config_data))
    if bot_type == BOT_TYPE_OUTGOING_WEBHOOK:
        if not service_url:
            raise ApiError("The 'payload_url' parameter is required")
        try:
            url = check_url_syntax(service_url)
        except UnsafeUrlError as error:
            raise ApiError(f"Invalid outgoing webhook URL: {error}") from None
        new = replace(new, service_url=url,
                      service_token=random_alphanumeric(SERVICE_TOKEN_LENGTH),
                      service_interface=interface)
    if get_user_by_email(realm_id, new.email) is not None:
        raise ApiError("That bot username is taken")
    # A second active user with this name could only be mentioned with the |id form.
    if any(u.is_active for u in User.by_name.query(name_key(realm_id, full_name))):
        raise ApiError("Another bot already has that name.")

    def owner_still_active(tx: TransactWrite, _bot: User) -> None:
        # A bot committed after its owner's deactivation swept the owner's bots would
        # outlive it: the owner must still be active when the bot is written.
        tx.condition_check(User, realm_id, owner.user_id,
                           condition=User.is_active == True)

    try:
        return do_create_user(realm_id, new, also=owner_still_active)
    except ApiError:
        current = User.get_or_none(realm_id, owner.user_id)
        if current is None or not current.is_active:
            raise ApiError("The bot's owner has been deactivated.") from None
        raise


def check_create_bot(caller: Principal, *, full_name: str, short_name: str, bot_type: int,
                     payload_url: str | None, interface_type: int,
                     service_name: str | None = None,
                     config_data: dict[str, str] | None = None) -> CreateBotResult:
    require_member_or_admin(caller)
    owner = get_own_user(caller)
    bot, api_key = do_create_bot(caller.realm_id, owner, full_name, short_name, payload_url,
                                 bot_type=bot_type, interface=interface_type,
                                 service_name=service_name, config_data=config_data)
    return {"user_id": bot.user_id, "api_key": api_key,
            "avatar_url": user_avatar_url(bot),
            "default_sending_stream": None, "default_events_register_stream": None,
            "default_all_public_streams": False}


def get_own_bots(caller: Principal) -> list[BotDict]:
    """The caller's active bots, oldest first (one index query), with their tokens."""
    require_member_or_admin(caller)
    return [bot_dict(b) for b in
            User.by_bot_owner.query(bot_owner_key(caller.realm_id, caller.user_id))
            if b.is_active]
