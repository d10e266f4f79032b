"""Drafts stored for a user who synchronizes them, and one-time confirmation records."""
from __future__ import annotations

from pynamodb.attributes import (
    UnicodeAttribute,
)

from chalicelib.models.attributes import IntegerAttribute, list_of
from chalicelib.models.base import BaseModel, table_meta


class Draft(BaseModel):
    Meta = table_meta("drafts")
    user_key = UnicodeAttribute(hash_key=True)        # "<realm_id>#<user_id>"
    draft_id = IntegerAttribute(range_key=True)        # allocate_id(realm_id, "draft")
    type = UnicodeAttribute()                         # "stream", "private" or ""
    to = list_of(IntegerAttribute, default=list)
    topic = UnicodeAttribute(default="")
    content = UnicodeAttribute()
    timestamp = IntegerAttribute()


