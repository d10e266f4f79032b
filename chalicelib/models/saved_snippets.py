"""Saved snippets (§4.16, §4.17) and the organization's code playgrounds (§4.18)."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class SavedSnippet(BaseModel):
    Meta = table_meta("saved_snippets")
    user_key = UnicodeAttribute(hash_key=True)        # "<realm_id>#<user_id>"
    snippet_id = IntegerAttribute(range_key=True)      # allocate_id(realm_id, "snippet")
    title = UnicodeAttribute()
    content = UnicodeAttribute()
    date_created = IntegerAttribute()


