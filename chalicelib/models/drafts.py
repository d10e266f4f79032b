"""Drafts stored for a user who synchronizes them, and one-time confirmation records."""
from __future__ import annotations

from pynamodb.attributes import (
    UnicodeAttribute,
)

from chalicelib.models.attributes import IntegerAttribute, list_of
from chalicelib.models.base import BaseModel, table_meta
from chalicelib.models.channels import user_key


class Draft(BaseModel):
    Meta = table_meta("drafts")
    user_key = UnicodeAttribute(hash_key=True)        # "<realm_id>#<user_id>"
    draft_id = IntegerAttribute(range_key=True)        # allocate_id(realm_id, "draft")
    type = UnicodeAttribute()                         # "stream", "private" or ""
    to = list_of(IntegerAttribute, default=list)
    topic = UnicodeAttribute(default="")
    content = UnicodeAttribute()
    timestamp = IntegerAttribute()


def delete_all_drafts(realm_id: int, user_id: int) -> int:
    """When a user stops synchronizing drafts: delete them, in batches (safe to repeat)."""
    # Strongly consistent: a draft committed just before synchronization was turned off
    # must be among those deleted (its transaction checked the setting).
    drafts = list(Draft.query(user_key(realm_id, user_id), consistent_read=True))
    with Draft.batch_write() as batch:
        for draft in drafts:
            batch.delete(draft)
    return len(drafts)
