"""Whom a subscription request names (`principals`) and how many subscriptions it may
change: shared by subscribing, unsubscribing and creating a channel."""
from __future__ import annotations

from chalicelib.actions.users.reads.email_lookup import users_by_api_email
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.users import User

# At most this many subscriptions (channels times users) a request changes.
MAX_SUBSCRIPTIONS_PER_REQUEST = 1000


def principal_users(caller: Principal, principals: list[int] | list[str] | None) -> list[User]:
    if not principals:
        return [User.get(caller.realm_id, caller.user_id)]
    users: list[User] = []
    ids = [p for p in principals if isinstance(p, int)]
    found = {u.user_id: u for u in User.batch_get([(caller.realm_id, i) for i in ids])}
    by_email = users_by_api_email(caller.realm_id, [p for p in principals if isinstance(p, str)])
    for principal in principals:
        user = found.get(principal) if isinstance(principal, int) else by_email.get(principal)
        if user is None or not user.is_active:
            raise ApiError(f"No such user: {principal}")
        users.append(user)
    if any(u.user_id != caller.user_id for u in users) and caller.is_guest:
        raise ApiError("Insufficient permission: guests cannot subscribe other users.")
    return users


def check_subscription_count(channels: int, users: int) -> None:
    """A request changes at most MAX_SUBSCRIPTIONS_PER_REQUEST subscriptions."""
    if channels * users > MAX_SUBSCRIPTIONS_PER_REQUEST:
        raise ApiError(f"Too many subscriptions: at most {MAX_SUBSCRIPTIONS_PER_REQUEST} "
                       "(channels times users) at a time.")
