"""API key rotation and revocation: every key of the user stops working at once, open
push connections are closed and waiting long-polls are woken to see it.

Keys are stored hashed (one ApiKey item per key, rules/secrets.py), so rotating deletes
the user's key items and writes one for the new key in one transaction: the next
request with an old key finds no item (authentication is that one GetItem).
"""
from __future__ import annotations

import time
from typing import TypedDict

from pynamodb.expressions.update import Action

from chalicelib import config
from chalicelib.actions.users.devices import forget_push_registrations
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.delivery import push
from chalicelib.delivery.append import read_tail
from chalicelib.delivery.connections import forget
from chalicelib.delivery.queues import queues_of_users
from chalicelib.delivery.wake import CREDENTIALS, wake
from chalicelib.models.base import transaction
from chalicelib.models.races import retry_lost_races
from chalicelib.models.realms import get_realm
from chalicelib.models.users import (
    ApiKey,
    User,
    api_key_record,
    key_fields_current,
    key_set_current,
)
from chalicelib.rules.secrets import hash_api_key, new_api_key, open_secret, seal_secret

MAX_ATTEMPTS = 5
DEVICES_END_WITH_KEY_LEVEL = 492


class RegenerateApiKeyResult(TypedDict):
    api_key: str


def do_regenerate_api_key(caller: Principal) -> RegenerateApiKeyResult:
    """POST /users/me/api_key/regenerate: a new key for the caller; all others end."""
    api_key = do_rotate_api_key(caller.realm_id, caller.user_id)
    assert api_key is not None  # nosec B101 # type narrowing (set above)
    return {"api_key": api_key}


def do_regenerate_bot_api_key(caller: Principal, bot_id: int) -> RegenerateApiKeyResult:
    """POST /bots/{bot_id}/api_key/regenerate: for the bot's owner or an administrator
    (anyone else is told there is no such bot, as for a bot that does not exist)."""
    bot = User.get_or_none(caller.realm_id, bot_id)
    if bot is None or not bot.is_bot or not (
            caller.is_admin or bot.bot_owner_id == caller.user_id):
        raise ApiError("No bot with that ID exists")
    if not bot.is_active:
        raise ApiError("The bot is deactivated; reactivate it first.")
    api_key = do_rotate_api_key(caller.realm_id, bot_id)
    assert api_key is not None  # nosec B101 # type narrowing (set above)
    return {"api_key": api_key}


def do_get_bot_api_key(caller: Principal, bot_id: int) -> RegenerateApiKeyResult:
    """GET /bots/{bot_id}/api_key (level 463): the bot's newest key, for its owner or an
    administrator (anyone else is told there is no such bot)."""
    bot = User.get_or_none(caller.realm_id, bot_id)
    if bot is None or not bot.is_bot or not (
            caller.is_admin or bot.bot_owner_id == caller.user_id):
        raise ApiError("There is no bot with this id that you may manage.")
    api_key = open_secret(bot.bot_api_key_sealed, config.bot_key_sealing_key()) \
        if bot.bot_api_key_sealed else None
    if api_key is None:   # made before keys were kept sealed, or under an older key
        raise ApiError("This bot's API key cannot be shown; regenerate it to get a new "
                       "one.")
    return {"api_key": api_key}


def do_rotate_api_key(realm_id: int, user_id: int, *, issue: bool = True) -> str | None:
    """Replaces every API key of the user by one new key (returned), or by none when
    `issue` is false (revocation: the user gets a key again by logging in with a
    password, or from an administrator's rotation)."""
    realm = get_realm(realm_id)
    def attempt() -> tuple[str, set[str]]:
        user = User.get(realm_id, user_id)
        held = set(user.extra_api_key_hashes or ())
        api_key = new_api_key()
        key_hash = hash_api_key(api_key)
        condition = key_set_current(user) & key_fields_current(user)
        actions: list[Action] = [User.api_key_hash.set(key_hash)]
        if held:
            actions.append(User.extra_api_key_hashes.remove())
        if user.is_bot:   # the key shown again (GET /bots/{id}/api_key), or none
            actions.append(User.bot_api_key_sealed.set(seal_secret(
                api_key, config.bot_key_sealing_key())) if issue
                else User.bot_api_key_sealed.remove())
        with transaction() as tx:
            for old_hash in [user.api_key_hash, *sorted(held)]:
                tx.delete(ApiKey(old_hash))
            if issue:
                # Revoked, the user keeps a hash no key matches and no item.
                tx.save(api_key_record(key_hash, user, created=time.time_ns(),
                                       realm_active=not realm.deactivated),
                        condition=ApiKey.key_hash.does_not_exist())
            tx.update(user, actions=actions, condition=condition)
        return api_key, held

    # A login adding a key meanwhile makes it read the user's keys again.
    api_key, held = retry_lost_races(
        attempt, conflict="The user's keys changed meanwhile; try again.", attempts=MAX_ATTEMPTS)
    end_sessions(realm_id, user_id)
    if level_reached(DEVICES_END_WITH_KEY_LEVEL):
        # The devices logged in with the old key: their push registrations end too.
        forget_push_registrations(realm_id, user_id)
    logger.info("api keys rotated" if issue else "api keys revoked",
                extra={"realm_id": realm_id, "user_id": user_id, "revoked": 1 + len(held)})
    return api_key if issue else None


def end_sessions(realm_id: int, user_id: int) -> int:
    """Closes the user's push connections and wakes their waiting long-polls, which then
    check their key again (realtime/reader.py) and answer with the auth error. The queues
    stay: a client with the new key goes on with its queue. Returns connections closed."""
    closed = 0
    for queue in queues_of_users(realm_id, [user_id]):
        connection_id = read_tail(queue.queue_id, None).conn
        if connection_id:
            if push.enabled():
                push.close(connection_id)
            forget(queue, connection_id)
            closed += 1
        if queue.wake_url:
            wake(queue.wake_url, CREDENTIALS)
    return closed
