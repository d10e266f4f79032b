"""Finding people by an email address without confirming a hidden one.

Two lookups, as the reference has them. `users_by_api_email` (direct-message recipients,
narrow operands, channel principals, presence): an address names a person only if it
is their API address, so a hidden person's real address names nobody, for every caller.
`access_user_by_email` (GET and PATCH /users/{email}): the stand-in address, or the
real address when the caller may see it. In both, a hidden address answers exactly as
an address nobody has.
"""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib.actions.users.reads.email_access import shown_delivery_email
from chalicelib.actions.users.reads.users import access_user_by_id
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.realms import Realm, UniqueName, email_key
from chalicelib.models.side_by_side import read_all
from chalicelib.models.users import MAX_EMAIL_BYTES, User, get_user_by_email
from chalicelib.rules.email_visibility import stand_in_email, stand_in_user_id


def users_by_api_email(realm_id: int, emails: Iterable[str]) -> dict[str, User]:
    """Each address that is a person's API address (compared without case), to that
    person; the others are left out. Two batched reads: the real addresses' claims,
    then the candidates (by claim, or by the id a stand-in names)."""
    wanted = {email: email.strip().lower() for email in emails
              if len(email.strip().encode()) <= MAX_EMAIL_BYTES}   # no address is longer
    claims = {claim.name: int(claim.target_id) for claim in read_all(
        UniqueName, sorted({email_key(realm_id, email) for email in wanted}))}
    candidates: dict[str, set[int]] = {}
    for email, folded in wanted.items():
        ids = candidates.setdefault(email, set())
        claimed = claims.get(email_key(realm_id, folded)[1])
        if claimed is not None:
            ids.add(claimed)
        named = stand_in_user_id(folded)
        if named is not None:
            ids.add(named)
    users = {user.user_id: user for user in read_all(
        User, sorted({(realm_id, i) for ids in candidates.values() for i in ids}))}
    found: dict[str, User] = {}
    for email, ids in candidates.items():
        match = [users[i] for i in sorted(ids)
                 if i in users and users[i].email.lower() == wanted[email]]
        if match:
            found[email] = match[0]
    return found


def access_user_by_email(caller: Principal, email: str) -> User:
    """The person an address names for this caller: by their stand-in (whatever their
    setting now), or by their real address if the caller may see it; then the usual
    access check. Anything else is "No such user", as for an unknown address."""
    named = stand_in_user_id(email)
    if named is not None:
        realm = Realm.get_or_none(caller.realm_id)
        if realm is not None and email.strip().lower() == stand_in_email(
                named, realm.subdomain).lower():
            return access_user_by_id(caller, named)
    user = get_user_by_email(caller.realm_id, email)
    if user is None or shown_delivery_email(caller, user) is None:
        raise ApiError("No such user")
    return access_user_by_id(caller, user.user_id)
