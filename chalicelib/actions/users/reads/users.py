"""Reading users: by email, by id with access checks."""
from __future__ import annotations

from chalicelib.actions.users.reads.access import (
    load_user_for,
)
from chalicelib.core.errors import UNKNOWN_USER, ApiError
from chalicelib.core.principal import (
    Principal,
)
from chalicelib.models.users import User


def access_user_by_id(caller: Principal, user_id: int, *, allow_deactivated: bool = True,
                      allow_bots: bool = True) -> User:
    """The user of the caller's realm with this id; missing, forbidden and inaccessible
    (can_access_all_users_group) look the same."""
    user = load_user_for(caller, user_id)
    if user is None or (not allow_deactivated and not user.is_active) or (
            not allow_bots and user.is_bot):
        raise ApiError(UNKNOWN_USER)
    return user
