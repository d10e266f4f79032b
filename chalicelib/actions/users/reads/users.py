"""Reading users: by email, by id with access checks."""
from __future__ import annotations

from chalicelib.actions.users.reads.access import (
    load_user_for,
)
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import (
    Principal,
)
from chalicelib.models.realms import UniqueName, email_key
from chalicelib.models.users import User


def get_user_by_email(realm_id: int, email: str) -> User | None:
    if len(email.strip().encode()) > MAX_EMAIL_BYTES:
        return None   # no account has one; DynamoDB would refuse the key (1 KB)
    scope, key = email_key(realm_id, email)
    claim = UniqueName.get_or_none(scope, key)
    return None if claim is None else User.get_or_none(realm_id, claim.target_id)


def access_user_by_id(caller: Principal, user_id: int, *, allow_deactivated: bool = True,
                      allow_bots: bool = True) -> User:
    """The user of the caller's realm with this id; missing, forbidden and inaccessible
    (can_access_all_users_group) look the same."""
    user = load_user_for(caller, user_id)
    if user is None or (not allow_deactivated and not user.is_active) or (
            not allow_bots and user.is_bot):
        raise ApiError("No such user")
    return user


# RFC 5321's limit, in bytes; it also keeps the email claim's key under DynamoDB's 1 KB.
MAX_EMAIL_BYTES = 254
