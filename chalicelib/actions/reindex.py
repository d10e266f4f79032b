"""Backfills the attributes that indexes read, for data written before they existed.

Users' `role_key` (the `by_role` index that finds another owner) and `group_ids` (the
direct groups that deactivation leaves) are written by every change since they were
added; this brings older items in line. Bulk by nature (it reads the whole realm), so it
runs from the admin CLI, never on a request path. Safe to run again at any time.
"""
from __future__ import annotations

from collections.abc import Callable

from pynamodb.exceptions import TransactWriteError, UpdateError

from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User, role_key


def do_reindex_realm(realm_id: int, progress: Callable[[str], None] = lambda _: None
                     ) -> dict[str, int]:
    roles = _backfill_role_keys(realm_id)
    progress(f"role keys set: {roles}")
    links = _backfill_group_ids(realm_id)
    progress(f"group links set: {links}")
    return {"role_keys_set": roles, "group_links_set": links}


def _backfill_role_keys(realm_id: int) -> int:
    changed = 0
    for user in User.query(realm_id):
        wanted = None if user.is_bot else role_key(realm_id, user.role)
        if user.role_key == wanted:
            continue
        action = User.role_key.set(wanted) if wanted else User.role_key.remove()
        try:
            # A role changed meanwhile has set its own key: leave that one alone.
            user.update(actions=[action], condition=User.role == user.role)
            changed += 1
        except UpdateError as error:
            if "ConditionalCheckFailed" not in str(error):
                raise
    return changed


def _backfill_group_ids(realm_id: int) -> int:
    linked = 0
    for group in UserGroup.query(realm_id):
        if group.is_system_group:
            continue
        for user_id in sorted(group.direct_members or ()):
            try:
                with transaction() as tx:
                    # Only while the user is still a member: a blind ADD could race with a
                    # removal and leave a group the user is no longer in.
                    tx.condition_check(UserGroup, realm_id, group.group_id,
                                       condition=UserGroup.direct_members.contains(user_id))
                    tx.update(User(realm_id, user_id),
                              actions=[User.group_ids.add({group.group_id})],
                              condition=User.user_id.exists())
                linked += 1
            except TransactWriteError as error:
                if not is_condition_failure(error):
                    raise
    return linked
