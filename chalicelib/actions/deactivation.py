"""DELETE /users/{id} (§4.19) and POST /users/{id}/reactivate.

Deactivating writes, in one transaction, the user's flag, every API-key record (so the
next request is refused) and the realm_user event (for an owner, with a check that
another owner stays active); then removes the user from user groups in batches (each
batch with its events, safe to repeat), deactivates the bots they own, deletes their
event queues and sends the optional notification email.
"""
from __future__ import annotations

from typing import Any

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.realms import get_realm
from chalicelib.actions.user_access import user_access_audience
from chalicelib.actions.users import access_user_by_id
from chalicelib.events.outbox import add_event
from chalicelib.events.queues import delete_queue, queues_of_users
from chalicelib.http.auth import ROLE_OWNER, Principal
from chalicelib.http.errors import ApiError
from chalicelib.lib.email import send_email
from chalicelib.lib.log import logger
from chalicelib.models.base import (
    cancellation_reasons,
    is_condition_failure,
    transaction,
)
from chalicelib.models.realms import Realm
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import ApiKey, User, bot_owner_key, role_key

MAX_COMMENT_LENGTH = 2000
GROUPS_PER_TRANSACTION = 45   # each group is one update and one event
MAX_ATTEMPTS = 3


def key_hashes(user: User) -> list[str]:
    return [user.api_key_hash, *sorted(user.extra_api_key_hashes or ())]


def do_deactivate_user(caller: Principal, user_id: int,
                       deactivation_notification_comment: str | None) -> dict[str, Any]:
    if not caller.is_admin:
        raise ApiError("Insufficient permission")
    target = access_user_by_id(caller, user_id, allow_bots=False)
    if not target.is_active:
        raise ApiError("User is already deactivated")
    if target.role == ROLE_OWNER and not caller.is_owner:
        raise ApiError("Must be an organization owner")
    comment = (deactivation_notification_comment or "").strip()
    if len(comment) > MAX_COMMENT_LENGTH:
        raise ApiError(f"deactivation_notification_comment is too long "
                       f"(limit: {MAX_COMMENT_LENGTH} characters)")
    if target.role == ROLE_OWNER:
        _deactivate_owner(target)
    else:
        _set_active(target, False)
    realm = get_realm(caller.realm_id)
    _leave_groups(realm, target.user_id)
    for bot in User.by_bot_owner.query(bot_owner_key(caller.realm_id, target.user_id)):
        if bot.is_active:
            _set_active(bot, False)
    for queue in queues_of_users(caller.realm_id, [target.user_id]):
        delete_queue(queue)
    if deactivation_notification_comment is not None:
        _notify(realm, target, comment)
    return {}


def do_reactivate_user(caller: Principal, user_id: int) -> dict[str, Any]:
    if not caller.is_admin:
        raise ApiError("Insufficient permission")
    target = access_user_by_id(caller, user_id)
    if target.is_active:
        raise ApiError("User is already active")
    _set_active(target, True)
    return {}


def _other_active_owner(realm_id: int, user_id: int) -> int | None:
    """Another active owner, from the index of owners (not the whole realm)."""
    for owner in User.by_role.query(role_key(realm_id, ROLE_OWNER)):
        if owner.user_id != user_id and owner.is_active:
            return int(owner.user_id)
    return None


def _deactivate_owner(target: User) -> None:
    """An owner goes only while another stays: the transaction checks that the other
    owner is still an active owner, so two owners deactivating each other at the same
    time cannot both succeed (the index may lag; the check reads the user itself)."""
    for _ in range(MAX_ATTEMPTS):
        other = _other_active_owner(target.realm_id, target.user_id)
        if other is None:
            break
        try:
            _set_active(target, False, keep_owner=other)
            return
        except _OwnerGone:
            continue
    raise ApiError("Cannot deactivate the only organization owner")


class _OwnerGone(Exception):
    """The owner counted on to stay was deactivated (or demoted) meanwhile."""


def _set_active(user: User, active: bool, keep_owner: int | None = None) -> None:
    try:
        with transaction() as tx:
            if keep_owner is not None:   # condition checks are a transaction's first items
                tx.condition_check(User, user.realm_id, keep_owner, condition=(
                    (User.role == ROLE_OWNER) & (User.is_active == True)))
            tx.update(user, actions=[User.is_active.set(active)],
                      condition=User.is_active == (not active))
            for key_hash in key_hashes(user):
                tx.update(ApiKey(key_hash), actions=[ApiKey.is_active.set(active)],
                          condition=ApiKey.key_hash.exists())
            add_event(tx, user.realm_id, {"type": "realm_user", "op": "update", "person": {
                "user_id": user.user_id, "is_active": active}},
                user_access_audience(user.user_id))
    except TransactWriteError as error:
        reasons = cancellation_reasons(error)
        if keep_owner is not None and reasons and reasons[0] == "ConditionalCheckFailed":
            raise _OwnerGone() from None
        if is_condition_failure(error):
            raise ApiError("The user was (de)activated meanwhile; reload and try again.") \
                from None
        raise


def _leave_groups(realm: Realm, user_id: int) -> None:
    """Removes the user from every user group; deactivated users are in none."""
    groups = [g for g in UserGroup.query(realm.realm_id)
              if not g.is_system_group and user_id in (g.direct_members or ())]
    for start in range(0, len(groups), GROUPS_PER_TRANSACTION):
        with transaction() as tx:
            for group in groups[start:start + GROUPS_PER_TRANSACTION]:
                tx.update(group, actions=[UserGroup.direct_members.delete({user_id})])
                add_event(tx, realm.realm_id, {
                    "type": "user_group", "op": "remove_members", "group_id": group.group_id,
                    "user_ids": [user_id]}, {"realm": True})


def _notify(realm: Realm, user: User, comment: str) -> None:
    body = (f"Your account in the organization {realm.name} has been deactivated.\n")
    if comment:
        body += f"\nA message from the administrator:\n\n{comment}\n"
    try:
        send_email(user.delivery_email, f"Your account in {realm.name} was deactivated", body)
    except Exception:  # noqa: BLE001 - the deactivation stands; the log says what failed
        logger.exception("deactivation email failed", extra={"user_id": user.user_id})
