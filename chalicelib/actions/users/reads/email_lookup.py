"""Finding people by API address, without confirming a hidden real one.

Direct-message recipients, narrow operands, channel principals and presence name people
by email as the reference does: an address names a person only if it is their API
address, so a hidden person's real address names nobody, for every caller, and answers
exactly as an address nobody has. (GET and PATCH /users/{email} also take the real
address from a caller who may see it: reads/shown.access_user_by_email.)
"""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib.models.realms import UniqueName, email_key
from chalicelib.models.side_by_side import read_all
from chalicelib.models.users import MAX_EMAIL_BYTES, User
from chalicelib.rules.email_visibility import stand_in_user_id


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
