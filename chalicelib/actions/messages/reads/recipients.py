"""Direct-message recipients: parsing a `to` and reading the users it names."""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib.actions.users.reads.access import caller_access
from chalicelib.actions.users.reads.email_lookup import users_by_api_email
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.users import User
from chalicelib.rules.json_values import check_json, check_storable, too_deep

# A direct message's recipients are looked up in batches; a list has a bound.
MAX_DIRECT_RECIPIENTS = 1000


@dataclass
class DirectTarget:
    """The recipients a direct message's `to` names, checked before any is looked up."""

    ids: set[int]
    emails: list[str]


def parse_direct_target(to: str) -> DirectTarget:
    target = _parse_to(to)
    if isinstance(target, (int, str)) and not isinstance(target, bool):
        target = [t.strip() for t in str(target).split(",") if t.strip()] if isinstance(
            target, str) else [target]
    if not isinstance(target, list) or not target:
        raise ApiError("Invalid 'to': give a list of user ids or emails.")
    if len(target) > MAX_DIRECT_RECIPIENTS:   # before any of them is looked up
        raise ApiError(f"Too many recipients in 'to' (limit: {MAX_DIRECT_RECIPIENTS}).")
    numbers = [t for t in target if isinstance(t, int) and not isinstance(t, bool)]
    emails = [t for t in target if isinstance(t, str)]
    if len(numbers) + len(emails) != len(target):
        raise ApiError("Invalid 'to': give a list of user ids or emails.")
    return DirectTarget({check_json("to", t, int) for t in numbers}, emails)


def direct_recipient_users(caller: Principal, to: str | DirectTarget) -> list[User]:
    """The users a direct message names, if the caller may write to each: a user the
    caller may not access (can_access_all_users_group) is refused as the reference
    refuses them, before anything is written; named by an address, they read as an
    address nobody has, so the answer confirms no hidden address."""
    parsed = to if isinstance(to, DirectTarget) else parse_direct_target(to)
    ids, emails = parsed.ids, parsed.emails
    allows = caller_access(caller)
    users = list(User.batch_get([(caller.realm_id, i) for i in ids]))
    missing = ids - {u.user_id for u in users}
    # By API address only: a hidden person's real address names nobody.
    by_email = users_by_api_email(caller.realm_id, emails)
    for email in emails:
        if email not in by_email or not allows(by_email[email]):
            raise ApiError(f"No user has the email '{email}'")
        users.append(by_email[email])
    if missing:
        raise ApiError(f"No user with ID {min(missing)} exists")
    check_accessible(users, allows)
    for user in users:
        if not user.is_active:
            raise ApiError(f"'{user.email}' is no longer using this organization.")
    return users


def check_accessible(users: list[User], allows: Callable[[User], bool]) -> None:
    """Refuses recipients the caller may not access (direct messages, typing)."""
    if not all(allows(user) for user in users):
        raise ApiError("You may not write to some of these recipients: you cannot see them.")


def _parse_to(to: str) -> Any:
    """`to` is JSON (an id, a name, a list) or plain text (a name, emails)."""
    try:
        value = json.loads(to)
    except RecursionError:
        raise too_deep("to") from None
    except ValueError:
        return to
    check_storable("to", value)
    return value
