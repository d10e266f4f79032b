"""User statuses (§4.9, §4.10) and the organization's custom emoji."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class UserStatus(BaseModel):
    """A user's status; absent when cleared. `away` lives in the presence_enabled setting."""

    Meta = table_meta("user_statuses")
    realm_id = IntegerAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)
    status_text = UnicodeAttribute(default="")
    emoji_name = UnicodeAttribute(default="")
    emoji_code = UnicodeAttribute(default="")
    reaction_type = UnicodeAttribute(default="")
    timestamp = IntegerAttribute()


