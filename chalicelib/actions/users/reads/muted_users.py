"""A user's muted users as the API shows them (POST /register's muted_users); the writes
are in actions/users/muted_users.py.
"""
from __future__ import annotations

from typing import TypedDict

from chalicelib.models.muted_users import muted_user_ids


class MutedUser(TypedDict):
    id: int
    timestamp: int


def muted_users_list(realm_id: int, user_id: int) -> list[MutedUser]:
    """The user's muted users, by id (one Query)."""
    return [{"id": muted, "timestamp": at}
            for muted, at in sorted(muted_user_ids(realm_id, user_id).items())]
