"""Reading organizations by id or subdomain."""
from __future__ import annotations

import re

from chalicelib.core.errors import ApiError
from chalicelib.models.realms import Realm, UniqueName, subdomain_key


def get_realm_by_subdomain(subdomain: str) -> Realm | None:
    if not SUBDOMAIN_RE.match(subdomain.lower()):   # no realm has it: no lookup (key size)
        return None
    scope, key = subdomain_key(subdomain)
    claim = UniqueName.get_or_none(scope, key)
    return None if claim is None else Realm.get_or_none(claim.target_id)


def get_realm(realm_id: int) -> Realm:
    realm = Realm.get_or_none(realm_id)
    if realm is None:
        raise ApiError("Invalid organization")
    return realm


SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$")
