"""Bots as the API shows them to those who administer them (GET /bots, POST /register's
realm_bots); creating one is actions/users/bots.py.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict

from chalicelib.actions.users.reads.system_bots import is_system_bot
from chalicelib.core.feature_levels import at_advertised_level
from chalicelib.core.principal import Principal
from chalicelib.models.user_rows import UserRow
from chalicelib.models.users import (
    BOT_TYPE_OUTGOING_WEBHOOK,
    User,
    bot_owner_key,
    user_avatar_url,
)
from chalicelib.rules.webhook_interfaces import INTERFACE_GENERIC


class OutgoingWebhookService(TypedDict):
    base_url: str
    interface: int
    token: str


class RealmBotDict(TypedDict):
    """A bot as the reference's Bot object shows it to those who administer it. From
    level 474 it is slim: what the user object of the bot does not already say (the
    keys marked NotRequired are gone, `realm_bots_state`)."""

    user_id: int
    full_name: NotRequired[str]
    email: NotRequired[str]
    bot_type: NotRequired[int | None]
    is_active: NotRequired[bool]
    owner_id: NotRequired[int | None]
    avatar_url: NotRequired[str]
    # API keys are stored only as hashes: the key a bot was created with cannot be shown
    # again (the reference shows it), so this is always empty.
    api_key: NotRequired[str]
    default_sending_stream: str | None
    default_events_register_stream: str | None
    default_all_public_streams: bool
    services: list[OutgoingWebhookService]


class BotDict(TypedDict):
    """A bot as GET /bots shows it: the Bot object without the API key, plus `username`."""

    user_id: int
    username: str
    email: str
    full_name: str
    bot_type: int | None
    is_active: bool
    owner_id: int | None
    avatar_url: str
    default_sending_stream: str | None
    default_events_register_stream: str | None
    default_all_public_streams: bool
    services: list[OutgoingWebhookService]


def realm_bot_dict(bot: User) -> RealmBotDict:
    services: list[OutgoingWebhookService] = []
    if bot.bot_type == BOT_TYPE_OUTGOING_WEBHOOK and bot.service_url:
        services = [{"base_url": bot.service_url,
                     "interface": int(bot.service_interface or INTERFACE_GENERIC),
                     "token": bot.service_token or ""}]
    return {"user_id": int(bot.user_id), "email": bot.email, "full_name": bot.full_name,
            "bot_type": None if bot.bot_type is None else int(bot.bot_type),
            "is_active": bot.is_active,
            "owner_id": None if bot.bot_owner_id is None else int(bot.bot_owner_id),
            "avatar_url": user_avatar_url(bot), "api_key": "",
            "default_sending_stream": None, "default_events_register_stream": None,
            "default_all_public_streams": False, "services": services}


def bot_dict(bot: User) -> BotDict:
    """A bot as GET /bots shows it: the Bot object (without the API key) and `username`."""
    shown = realm_bot_dict(bot)
    return {"user_id": shown["user_id"], "username": bot.email, "email": bot.email,
            "full_name": bot.full_name,
            "bot_type": None if bot.bot_type is None else int(bot.bot_type),
            "is_active": bot.is_active,
            "owner_id": None if bot.bot_owner_id is None else int(bot.bot_owner_id),
            "avatar_url": user_avatar_url(bot),
            "default_sending_stream": shown["default_sending_stream"],
            "default_events_register_stream": shown["default_events_register_stream"],
            "default_all_public_streams": shown["default_all_public_streams"],
            "services": shown["services"]}


def administered_bots(caller: Principal,
                      realm_users: Sequence[User | UserRow] | None = None
                      ) -> list[RealmBotDict]:
    """The bots the caller can administer, deactivated ones included: every bot of the
    organization for its administrators (from `realm_users` if the caller has them,
    else one Query of the realm's users; bots known only as rows are read whole, a
    BatchGetItem per 100), their own bots for others (one index Query). System bots
    belong to the server, not to anyone here."""
    if caller.is_admin:
        users = realm_users if realm_users is not None else User.query(caller.realm_id)
        listed = [u for u in users if u.is_bot and not is_system_bot(u)]
        bots = [u for u in listed if isinstance(u, User)]
        bots += User.batch_get([(u.realm_id, u.user_id) for u in listed
                                if isinstance(u, UserRow)])
    else:
        bots = list(User.by_bot_owner.query(bot_owner_key(caller.realm_id, caller.user_id)))
    # From level 474 without what the bot's user object says (at_advertised_level).
    return [at_advertised_level("bot", realm_bot_dict(b))
            for b in sorted(bots, key=lambda b: b.user_id)]
