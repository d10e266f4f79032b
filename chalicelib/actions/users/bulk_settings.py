"""PATCH /settings with `target_users` (level 444): organization administrators change
personal settings of other users, named one by one or as members of user groups, and
may leave alone what a user chose themself (`skip_if_already_edited`).

A user "chose" a setting when they changed it through their own PATCH /settings
(User.self_edited_settings, kept by actions/users/settings.py). Each target's changes are
one conditional update with a user_settings event per changed setting to that user's
queues, in transactions of at most MAX_TRANSACTION_ITEMS items; the same request again
finishes what an interrupted one left (values are set, not toggled). At most
MAX_TARGET_USERS people per request, checked before anything is written.
"""
from __future__ import annotations

from typing import Any

from chalicelib.actions.groups.reads.settings import group_setting_members
from chalicelib.actions.groups.reads.user_groups import get_user_group
from chalicelib.actions.users.settings import settings_event
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError
from chalicelib.core.feature_levels import withheld
from chalicelib.core.principal import ROLES, Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event
from chalicelib.delivery.queues import set_receives_typing_notifications
from chalicelib.models.base import MAX_TRANSACTION_ITEMS, transaction
from chalicelib.models.drafts import delete_all_drafts
from chalicelib.models.users import User, role_key
from chalicelib.rules.setting_choices import check_setting
from chalicelib.rules.user_settings import own_settings

MAX_TARGET_USERS = 1000
TARGET_KEYS = frozenset({"user_ids", "group_ids", "skip_if_already_edited"})
# What only the user decides (privacy, notices about their account), as the reference
# keeps them out of administrators' reach.
PROTECTED = frozenset({
    "allow_private_data_export", "email_address_visibility", "enable_digest_emails",
    "enable_login_emails", "enable_marketing_emails", "presence_enabled",
    "send_private_typing_notifications", "send_read_receipts",
    "send_stream_typing_notifications"})


def update_others_settings(caller: Principal, target: dict[str, Any],
                           account: dict[str, str | None], requested: dict[str, Any]
                           ) -> EmptyResult:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)
    if any(value is not None for value in account.values()):
        raise ApiError("An account's name, email address and password are not changed "
                       "for other users here.")
    protected = sorted(set(requested) & PROTECTED)
    if protected:
        raise ApiError(f"Only each user may change {', '.join(protected)}.")
    if not requested:
        raise ApiError("No settings to change were given.")
    for name, value in requested.items():
        check_setting(name, value)
    skip = _check_target(target)
    users = _target_users(caller, target)
    changes = {user.user_id: _changes(user, requested, skip) for user in users}
    _write(caller.realm_id, users, changes)
    for user in users:   # what follows from a setting, as for a user's own change
        if "receives_typing_notifications" in changes[user.user_id]:
            set_receives_typing_notifications(caller.realm_id, user.user_id,
                                              requested["receives_typing_notifications"])
        if changes[user.user_id].get("enable_drafts_synchronization") is False:
            delete_all_drafts(caller.realm_id, user.user_id)
    return {}


def _check_target(target: dict[str, Any]) -> bool:
    if set(target) - TARGET_KEYS or not (target.get("user_ids") or target.get("group_ids")):
        raise ApiError("target_users names users (user_ids) or groups (group_ids), and may "
                       "say skip_if_already_edited.")
    for key in ("user_ids", "group_ids"):
        ids = target.get(key, [])
        if not isinstance(ids, list) or len(ids) > MAX_TARGET_USERS or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in ids):
            raise ApiError(f"target_users.{key} is a list of at most {MAX_TARGET_USERS} ids.")
    skip = target.get("skip_if_already_edited", False)
    if not isinstance(skip, bool):
        raise ApiError("target_users.skip_if_already_edited is a boolean.")
    return skip


def _target_users(caller: Principal, target: dict[str, Any]) -> list[User]:
    """The named users and the active members of the named groups: active humans only."""
    realm_id = caller.realm_id
    wanted = set(target.get("user_ids", []))
    max_role = 0
    for group_id in set(target.get("group_ids", [])):
        group = get_user_group(realm_id, group_id)   # unknown: "Invalid user group ID"
        members, role = group_setting_members(realm_id, group_id if group.is_system_group
                                              else {"direct_members": [],
                                                    "direct_subgroups": [group_id]})
        wanted |= members
        max_role = max(max_role, role)
    by_role = [u for role in sorted(ROLES) if role <= max_role
               for u in User.by_role.query(role_key(realm_id, role))]
    found = {u.user_id: u for u in User.batch_get([(realm_id, i) for i in wanted])}
    found.update({u.user_id: u for u in by_role})
    for user_id in target.get("user_ids", []):
        if user_id not in found or not found[user_id].is_active or found[user_id].is_bot:
            raise ApiError(f"No user with ID {user_id} exists")
    users = sorted((u for u in found.values() if u.is_active and not u.is_bot),
                   key=lambda u: u.user_id)
    if len(users) > MAX_TARGET_USERS:
        raise ApiError(f"Too many users: at most {MAX_TARGET_USERS} a request.")
    return users


def _changes(user: User, requested: dict[str, Any], skip: bool) -> dict[str, Any]:
    current = own_settings(user.stored_settings(), user.timezone)
    chosen = set(user.self_edited_settings or ()) if skip else set()
    return {name: value for name, value in requested.items()
            if current.get(name) != value and name not in chosen}


def _write(realm_id: int, users: list[User], changes: dict[int, dict[str, Any]]) -> None:
    for batch in _batches([u for u in users if changes[u.user_id]], changes):
        with transaction() as tx:
            for user in batch:
                changed = changes[user.user_id]
                tx.update(user, actions=[User.settings[n].set(v) for n, v in changed.items()],
                          condition=User.is_active == True)
                owner = Principal(realm_id, user.user_id, user.email, int(user.role), False)
                for name, value in changed.items():
                    if name not in withheld("user_setting"):
                        add_event(tx, realm_id, *settings_event(owner, name, value))


def _batches(users: list[User], changes: dict[int, dict[str, Any]]) -> list[list[User]]:
    """The users in transactions of at most MAX_TRANSACTION_ITEMS items (an update and
    an event per changed setting each)."""
    batches: list[list[User]] = [[]]
    size = 0
    for user in users:
        items = 1 + len(changes[user.user_id])
        if batches[-1] and size + items > MAX_TRANSACTION_ITEMS:
            batches.append([])
            size = 0
        batches[-1].append(user)
        size += items
    return [batch for batch in batches if batch]
