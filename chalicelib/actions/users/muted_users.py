"""POST and DELETE /users/me/muted_users/{id}: a user's muted users, as the reference.

A mute is one transaction: both of its items (models/muted_users.py), conditioned on
the mute being new (or, to unmute, existing), with the `muted_users` event (the whole
list, as the reference sends it) and, for a mute, an internal record on which the
fan-out marks the muted user's messages read for the muter. New messages of a muted
sender arrive read (fanout/recipients.py); the request stays constant in size.
"""
from __future__ import annotations

from typing import Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.users.reads.muted_users import MutedUser
from chalicelib.actions.users.reads.users import access_user_by_id
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.delivery.records import muted_record
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.muted_users import UserMute, muted_key, muted_user_ids, muter_key
from chalicelib.rules.timeutil import now_seconds


class MutedUsersEvent(TypedDict):
    type: Literal["muted_users"]
    muted_users: list[MutedUser]


def _event(muted: dict[int, int]) -> MutedUsersEvent:
    return {"type": "muted_users", "muted_users": [
        {"id": u, "timestamp": at} for u, at in sorted(muted.items())]}


def do_mute_user(caller: Principal, muted_user_id: int) -> None:
    if muted_user_id == caller.user_id:
        raise ApiError("You cannot mute yourself")
    access_user_by_id(caller, muted_user_id, allow_bots=False)
    realm_id = caller.realm_id
    muted = muted_user_ids(realm_id, caller.user_id)
    if muted_user_id in muted:
        raise ApiError("This user is muted already")
    at = now_seconds()
    try:
        with transaction() as tx:
            tx.save(UserMute(muter_key(realm_id, caller.user_id), muted_user_id, timestamp=at),
                    condition=UserMute.user_id.does_not_exist())
            tx.save(UserMute(muted_key(realm_id, muted_user_id), caller.user_id, timestamp=at))
            add_event(tx, realm_id, _event({**muted, muted_user_id: at}),
                      to_users([caller.user_id]))
            add_event(tx, realm_id, muted_record(caller.user_id, muted_user_id),
                      to_users([caller.user_id]))
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError("This user is muted already") from error
        raise


def do_unmute_user(caller: Principal, muted_user_id: int) -> None:
    access_user_by_id(caller, muted_user_id)
    realm_id = caller.realm_id
    muted = muted_user_ids(realm_id, caller.user_id)
    if muted_user_id not in muted:
        raise ApiError("This user is not muted")
    del muted[muted_user_id]
    try:
        with transaction() as tx:
            tx.delete(UserMute(muter_key(realm_id, caller.user_id), muted_user_id),
                      condition=UserMute.user_id.exists())
            tx.delete(UserMute(muted_key(realm_id, muted_user_id), caller.user_id))
            add_event(tx, realm_id, _event(muted), to_users([caller.user_id]))
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError("This user is not muted") from error
        raise
