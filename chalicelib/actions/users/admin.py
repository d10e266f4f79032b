"""Administrators changing another user: PATCH /users/{id} or /users/{email} (name, role, profile data,
email).

An email change is the owner's, and only an owner's whom the server's operator gave the
`can_change_user_emails` special permission, as the reference has it. It takes effect
at once (no confirmation link): one transaction moves the realm's claim on the address
(a conditional put, so an address in use, even one taken a moment earlier, fails it),
writes the user and their API-key records, and emits the realm_user events.

A role change writes, in one transaction, the user's role (and its index key),
conditioned on the role that was read, the role on each of the user's API-key records,
with the realm_user event and the membership events of the role-based system groups
the user leaves and joins (their members are derived from roles, so no group item
changes). Demoting an owner checks in the same transaction that another owner stays
active, so two owners cannot demote each other.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.groups.membership import (
    EVERYONE,
    UserGroupAddMembersEvent,
    removed_members_event,
)
from chalicelib.actions.users.account import full_name_writes, write_email_change
from chalicelib.actions.users.deactivation import key_hashes
from chalicelib.actions.users.profile_data import do_update_profile_data
from chalicelib.actions.users.reads.access import user_access_audience
from chalicelib.actions.users.reads.events import RealmUserUpdateEvent
from chalicelib.actions.users.reads.shown import access_user_by_id_or_email
from chalicelib.actions.users.users import check_email, check_full_name
from chalicelib.core.errors import NOT_PERMITTED, OWNER_REQUIRED, ApiError, ConflictError
from chalicelib.core.principal import (
    ROLE_OWNER,
    ROLES,
    Principal,
)
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event
from chalicelib.delivery.queues import set_queues_role
from chalicelib.models.base import (
    cancellation_reasons,
    is_condition_failure,
    transaction,
)
from chalicelib.models.races import LostRace, retry_lost_races
from chalicelib.models.users import ApiKey, User, get_user_by_email, key_set_current, role_key
from chalicelib.rules.realm_settings import SYSTEM_GROUP_DIRECT_ROLES, system_group_id

MAX_ATTEMPTS = 3
# What follows a committed role change: the person in their new role, and the old role.
RoleChangeFollowUp = Callable[[Principal, int], None]

ONLY_OWNER = "The organization's only owner cannot stop being an owner."


def do_update_user(caller: Principal, user_id_or_email: str, *, full_name: str | None,
                   role: int | None, profile_data: Sequence[Mapping[str, Any]] | None,
                   new_email: str | None = None,
                   after_role_change: RoleChangeFollowUp | None = None) -> EmptyResult:
    """PATCH /users/{user_id} and PATCH /users/{email} (level 313): one route, digits
    are an id. `after_role_change` is called once a role change has committed, with the
    person in their new role and their old role (areas above this one follow it up)."""
    if not caller.is_admin:
        raise ApiError(NOT_PERMITTED)
    if new_email is not None:
        _check_may_change_emails(caller)
    target = access_user_by_id_or_email(caller, user_id_or_email)
    if role is not None:
        _check_role_change(caller, target, role)
    name = check_full_name(full_name) if full_name is not None else None
    email = _check_new_email(target, new_email) if new_email is not None else None
    if profile_data is not None:
        do_update_profile_data(caller, profile_data, target)   # checked before any write
    if name is not None:
        _change_name(caller, target, name)
    if email is not None:
        target = _change_email(target, email)
    if role is not None and role != target.role:
        _change_role(target, role, after_role_change)
    return {}


def do_set_can_change_user_emails(realm_id: int, user_id: int, allowed: bool) -> None:
    """The operator's grant (or withdrawal) of the special permission; no event, as the
    permission shows in no client-facing state."""
    User(realm_id, user_id).update(actions=[User.can_change_user_emails.set(allowed)],
                                   condition=User.user_id.exists())


def _check_may_change_emails(caller: Principal) -> None:
    if not caller.is_owner or not User.get(caller.realm_id,
                                           caller.user_id).can_change_user_emails:
        raise ApiError("Changing users' email addresses needs the organization owner "
                       "role and the special permission to change emails.")


def _check_new_email(target: User, new_email: str) -> str | None:
    """The address to change to, or None if it is already the user's."""
    if new_email.strip() == target.delivery_email:
        return None
    try:
        email = check_email(new_email)
    except ApiError:
        raise ApiError("The new email address is not valid.") from None
    if email.lower() != target.delivery_email.lower() and \
            get_user_by_email(target.realm_id, email) is not None:
        raise email_taken(email)
    return email


def email_taken(email: str) -> ApiError:
    return ApiError(f"Cannot use the new email: '{email}' belongs to another account "
                    "in this organization.")


def _change_email(target: User, email: str) -> User:
    """Writes the change; the target as it is after it (the role change reads it)."""
    try:
        with transaction() as tx:
            write_email_change(tx, target, email)
    except TransactWriteError as error:
        claim = get_user_by_email(target.realm_id, email)
        if claim is not None and claim.user_id != target.user_id:
            raise email_taken(email) from None   # taken since the check above
        if is_condition_failure(error):
            raise ConflictError("The user changed meanwhile; reload and try again.") from None
        raise
    return User.get(target.realm_id, target.user_id)


def _check_role_change(caller: Principal, target: User, role: int) -> None:
    if role not in ROLES:
        raise ApiError("Invalid role")
    if ROLE_OWNER in (role, target.role) and role != target.role and not caller.is_owner:
        raise ApiError(OWNER_REQUIRED)
    if target.role == ROLE_OWNER and role != ROLE_OWNER and \
            _other_active_owner(target) is None:
        raise ApiError(ONLY_OWNER)


def _other_active_owner(target: User) -> int | None:
    for owner in User.by_role.query(role_key(target.realm_id, ROLE_OWNER)):
        if owner.user_id != target.user_id and owner.is_active:
            return int(owner.user_id)
    return None


def _change_name(caller: Principal, target: User, name: str) -> None:
    actions, events = full_name_writes(caller, target, name)
    if not actions:
        return
    try:
        with transaction() as tx:
            tx.update(User(target.realm_id, target.user_id), actions=actions,
                      condition=User.full_name == target.full_name)
            for event in events:
                add_event(tx, target.realm_id, event, user_access_audience(target.user_id))
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ConflictError("The user changed meanwhile; reload and try again.") from None
        raise


def _system_group_of(role: int) -> int:
    name = next(n for n, roles in SYSTEM_GROUP_DIRECT_ROLES.items() if role in roles)
    return system_group_id(name)


def _change_role(target: User, role: int, after: RoleChangeFollowUp | None) -> None:
    realm_id, user_id = target.realm_id, target.user_id
    def attempt() -> None:
        keep = _other_active_owner(target) if target.role == ROLE_OWNER else None
        if target.role == ROLE_OWNER and keep is None:
            # The other owners went since the request was checked.
            raise ApiError(ONLY_OWNER)
        actions: list[Any] = [User.role.set(role)]
        if not target.is_bot:
            actions.append(User.role_key.set(role_key(realm_id, role)))
        event: RealmUserUpdateEvent = {"type": "realm_user", "op": "update",
                                       "person": {"user_id": user_id, "role": role}}
        old_group, new_group = _system_group_of(target.role), _system_group_of(role)
        try:
            with transaction() as tx:
                if keep is not None:   # condition checks are a transaction's first items
                    tx.condition_check(User, realm_id, keep, condition=(
                        (User.role == ROLE_OWNER) & (User.is_active == True)))
                # A key issued meanwhile must not keep the old role.
                tx.update(User(realm_id, user_id), actions=actions,
                          condition=(User.role == target.role) & key_set_current(target))
                for key_hash in key_hashes(target):   # authorization reads the role there
                    tx.update(ApiKey(key_hash), actions=[ApiKey.role.set(role)],
                              condition=ApiKey.key_hash.exists())
                add_event(tx, realm_id, event, user_access_audience(user_id))
                if target.is_active and old_group != new_group:
                    add_event(tx, realm_id, removed_members_event(old_group, [user_id]),
                              EVERYONE)
                    added: UserGroupAddMembersEvent = {
                        "type": "user_group", "op": "add_members", "group_id": new_group,
                        "user_ids": [user_id]}
                    add_event(tx, realm_id, added, EVERYONE)
        except TransactWriteError as error:
            reasons = cancellation_reasons(error)
            if keep is not None and reasons and reasons[0] == "ConditionalCheckFailed":
                raise LostRace() from None   # that owner went meanwhile: look for another
            if is_condition_failure(error):
                raise ConflictError("The user's role changed meanwhile; reload and try "
                                    "again.") from None
            raise

    retry_lost_races(attempt, conflict="The organization's owners changed meanwhile; reload "
                     "and try again.", attempts=MAX_ATTEMPTS)
    # The fan-out reads the role on the user's queues (who gets events for some roles,
    # whose real addresses they see): their live queues follow at once.
    set_queues_role(realm_id, user_id, role)
    if target.is_active and after is not None:
        after(Principal(realm_id, user_id, target.email, role, bool(target.is_bot),
                        target.bot_type), int(target.role))
