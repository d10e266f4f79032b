"""The users a narrow names, resolved to ids for a reader: every distinct user of every
term at once, emails through their claims, in batches (BatchGetItem, 100 keys a request),
so what it costs follows the distinct users, never how often or how they are spelled."""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib.core.principal import Principal
from chalicelib.models.realms import UniqueName, email_key
from chalicelib.models.users import MAX_EMAIL_BYTES, User
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
    if any(len(e.strip().encode()) > MAX_EMAIL_BYTES for e in emails):
        raise bad_operator("unknown user")   # no account has one
    claims = {claim.name: int(claim.target_id) for claim in UniqueName.batch_get(
        [email_key(caller.realm_id, e) for e in emails])}
    for email in emails:
        target = claims.get(email_key(caller.realm_id, email)[1])
        if target is None:
            raise bad_operator("unknown user")
        found[email] = target
    ids = {r for r in wanted if isinstance(r, int)} | {found[e] for e in emails}
    existing = {u.user_id for u in User.batch_get(
        [(caller.realm_id, i) for i in sorted(ids - {caller.user_id})],
        attributes_to_get=["realm_id", "user_id"])} | {caller.user_id}
    if not ids <= existing:
        raise bad_operator("unknown user")
    found.update((r, r) for r in wanted if isinstance(r, int))
    return found
