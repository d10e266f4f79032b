"""Every user of an organization (GET /users, the statuses of POST /register)."""
from __future__ import annotations

from chalicelib.models.users import User


def list_realm_users(realm_id: int) -> list[User]:
    # Listing every user is bulk by nature: one Query, paged by DynamoDB.
    return list(User.query(realm_id))
