"""An organization's custom emoji."""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class RealmEmoji(BaseModel):
    """A custom emoji; its image is in the uploads bucket under `path_id`."""

    Meta = table_meta("realm_emoji")
    realm_id = IntegerAttribute(hash_key=True)
    emoji_id = IntegerAttribute(range_key=True)       # allocate_id(realm_id, "emoji")
    name = UnicodeAttribute()
    path_id = UnicodeAttribute()
    author_id = IntegerAttribute(null=True)
    deactivated = BooleanAttribute(default=False)
