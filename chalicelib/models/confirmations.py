"""One-time confirmation keys (e.g. an email change waiting to be confirmed)."""
from __future__ import annotations

from pynamodb.attributes import (
    JSONAttribute,
    TTLAttribute,
    UnicodeAttribute,
)

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class Confirmation(BaseModel):
    """A link sent by email (e.g. to confirm a new address); keyed by the key's hash."""

    Meta = table_meta("confirmations")
    key_hash = UnicodeAttribute(hash_key=True)
    kind = UnicodeAttribute()                         # "email_change"
    realm_id = IntegerAttribute()
    user_id = IntegerAttribute()
    data = JSONAttribute()
    expires_at = TTLAttribute()
