"""The users a narrow names, resolved to ids for a reader: every distinct user of every
term at once, emails as API addresses (actions/users/reads/email_lookup.py), in batches
(BatchGetItem, 100 keys a request), so what it costs follows the distinct users, never
how often or how they are spelled."""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib.actions.users.reads.email_lookup import users_by_api_email
from chalicelib.core.principal import Principal
from chalicelib.models.users import User
from chalicelib.narrow.errors import bad_operator
from chalicelib.narrow.types import UserRef


def resolve_users(caller: Principal, refs: Iterable[UserRef]) -> dict[UserRef, int]:
    """Each reference (an id, an email, or "me") to the id of a user of the caller's
    realm; BAD_NARROW "unknown user" if one names nobody."""
    wanted = set(refs)
    found: dict[UserRef, int] = {}
    if "me" in wanted:
        found["me"] = caller.user_id
    emails = sorted(r for r in wanted if isinstance(r, str) and r != "me")
    # By API address only: a hidden person's real address names nobody.
    by_email = users_by_api_email(caller.realm_id, emails)
    for email in emails:
        if email not in by_email:
            raise bad_operator("the person it names does not exist")
        found[email] = by_email[email].user_id
    ids = {r for r in wanted if isinstance(r, int)}
    known = {caller.user_id, *found.values()}   # an id also named by email: read already
    existing = {u.user_id for u in User.batch_get(
        [(caller.realm_id, i) for i in sorted(ids - known)],
        attributes_to_get=["realm_id", "user_id"])} | known
    if not ids <= existing:
        raise bad_operator("the person it names does not exist")
    found.update((r, r) for r in wanted if isinstance(r, int))
    return found
