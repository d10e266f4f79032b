"""PATCH /bots/{bot_id}: a bot's owner or an administrator renames it (`full_name`) or,
from level 447, changes its address (`short_name`: `<short_name>-bot@<its domain>`).

Each change is one transaction with its events: the realm_user events everyone who can
access the bot gets (as for a person's name or address), and, for the owner and the
administrators who administer it, a realm_bot update (for a new address from level 461,
as the reference sends it; level 474 stops both). Other PATCH /bots parameters are not
taken here (`ignored_parameters_unsupported`).
"""
from __future__ import annotations

from typing import Literal, TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib.actions.users.account import full_name_writes, write_email_change
from chalicelib.actions.users.bots import SHORT_NAME_RE
from chalicelib.actions.users.reads.access import user_access_audience
from chalicelib.actions.users.users import check_full_name
from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import ROLE_ADMINISTRATOR, Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_realm, to_users
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.users import User, get_user_by_email, key_fields_current, name_key

SHORT_NAME_LEVEL = 447
EMAIL_EVENT_LEVEL = 461
SLIM_BOTS_LEVEL = 474   # realm_bot updates for names and addresses end there


class BotChange(TypedDict, total=False):
    user_id: int
    full_name: str
    email: str


class RealmBotUpdateEvent(TypedDict):
    """To the bot's owner and the administrators."""

    type: Literal["realm_bot"]
    op: Literal["update"]
    bot: BotChange


def do_update_bot(caller: Principal, bot_id: int, full_name: str | None,
                  short_name: str | None) -> EmptyResult:
    bot = _administered_bot(caller, bot_id)
    if full_name is not None:
        _rename(caller, bot, check_full_name(full_name))
        bot = User.get(caller.realm_id, bot_id)
    if short_name is not None and level_reached(SHORT_NAME_LEVEL):
        _change_address(bot, short_name)
    return {}


def _administered_bot(caller: Principal, bot_id: int) -> User:
    """The bot, for its owner or an administrator (anyone else: no such bot)."""
    bot = User.get_or_none(caller.realm_id, bot_id)
    if bot is None or not bot.is_bot or not (
            caller.is_admin or bot.bot_owner_id == caller.user_id):
        raise ApiError("There is no bot with this id that you may manage.")
    return bot


def _rename(caller: Principal, bot: User, full_name: str) -> None:
    if full_name == bot.full_name:
        return
    if any(u.is_active and u.user_id != bot.user_id
           for u in User.by_name.query(name_key(bot.realm_id, full_name))):
        raise ApiError("Someone in this organization already has that name.")
    actions, events = full_name_writes(caller, bot, full_name)
    try:
        with transaction() as tx:
            tx.update(bot, actions=actions, condition=key_fields_current(bot))
            for event in events:
                add_event(tx, bot.realm_id, event, user_access_audience(bot.user_id))
            if not level_reached(SLIM_BOTS_LEVEL):
                _tell_administrators(tx, bot, {"user_id": bot.user_id,
                                               "full_name": full_name})
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError("The bot changed meanwhile; try again.") from None
        raise


def _change_address(bot: User, short_name: str) -> None:
    short_name = short_name.strip().lower()
    if not SHORT_NAME_RE.match(short_name):
        raise ApiError("Bad name or username: use lowercase letters, digits, '.', '_' or '-'.")
    new_email = f"{short_name}-bot@{bot.email.rsplit('@', 1)[-1]}"
    if new_email == bot.email:
        return
    if get_user_by_email(bot.realm_id, new_email) is not None:
        raise ApiError("Another account already uses that bot username.")
    try:
        with transaction() as tx:
            write_email_change(tx, bot, new_email)
            if level_reached(EMAIL_EVENT_LEVEL) and not level_reached(SLIM_BOTS_LEVEL):
                _tell_administrators(tx, bot, {"user_id": bot.user_id, "email": new_email})
    except TransactWriteError as error:
        if is_condition_failure(error):   # the address was taken, or the bot changed
            raise ApiError("Another account already uses that bot username, or the bot "
                           "changed meanwhile; try again.") from None
        raise


def _tell_administrators(tx: TransactWrite, bot: User, change: BotChange) -> None:
    event: RealmBotUpdateEvent = {"type": "realm_bot", "op": "update", "bot": change}
    add_event(tx, bot.realm_id, event, to_realm(max_role=ROLE_ADMINISTRATOR))
    owner = User.get_or_none(bot.realm_id, bot.bot_owner_id) if bot.bot_owner_id else None
    if owner is not None and int(owner.role) > ROLE_ADMINISTRATOR:
        add_event(tx, bot.realm_id, event, to_users([owner.user_id]))
