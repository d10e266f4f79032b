"""Users' statuses as the API shows them (GET /users/{id}/status, POST /register's
user_status); the writes are in actions/users/status.py.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from chalicelib.actions.users.reads.access import UserAccess
from chalicelib.models.user_rows import UserRow, realm_user_rows
from chalicelib.models.user_status import UserStatus
from chalicelib.models.users import User
from chalicelib.rules.user_settings import effective_settings


class UserStatusDict(TypedDict, total=False):
    """A status: only the fields that are set (nothing when there is no status)."""

    away: bool
    status_text: str
    emoji_name: str
    emoji_code: str
    reaction_type: str


def user_status_dict(status: UserStatus | None, presence_enabled: bool) -> UserStatusDict:
    """The reference shape: only the fields that are set; empty when there is no status."""
    result: UserStatusDict = {}
    if not presence_enabled:
        result["away"] = True
    if status is not None and status.status_text:
        result["status_text"] = status.status_text
    if status is not None and status.emoji_name:
        result["emoji_name"] = status.emoji_name
        result["emoji_code"] = status.emoji_code
        result["reaction_type"] = status.reaction_type
    return result


def _presence_enabled(user: User | UserRow) -> bool:
    return bool(effective_settings(user.stored_settings())
                ["presence_enabled"])


def user_status_state(realm_id: int, access: UserAccess,
                      realm_users: Sequence[User | UserRow] | None = None
                      ) -> dict[str, UserStatusDict]:
    """Registration state: {user_id: status} for active users that have something set
    and that the viewer can access.

    One Query on the statuses; `away` comes from the settings of the realm's users
    (`realm_users` if the caller has them, else one Query).
    """
    statuses = {s.user_id: s for s in UserStatus.query(realm_id)}
    state = {}
    for user in realm_users if realm_users is not None else realm_user_rows(realm_id):
        if not user.is_active or not access.can_access(user):
            continue
        entry = user_status_dict(statuses.get(user.user_id), _presence_enabled(user))
        if entry:
            state[str(user.user_id)] = entry
    return state
