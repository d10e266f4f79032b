"""Saved snippets (§4.16, §4.17) and the organization's code playgrounds (§4.18)."""
from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from chalicelib.models.base import BaseModel, table_meta


class SavedSnippet(BaseModel):
    Meta = table_meta("saved_snippets")
    user_key = UnicodeAttribute(hash_key=True)        # "<realm_id>#<user_id>"
    snippet_id = NumberAttribute(range_key=True)      # allocate_id(realm_id, "snippet")
    title = UnicodeAttribute()
    content = UnicodeAttribute()
    date_created = NumberAttribute()


class Playground(BaseModel):
    Meta = table_meta("playgrounds")
    realm_id = NumberAttribute(hash_key=True)
    playground_id = NumberAttribute(range_key=True)   # allocate_id(realm_id, "playground")
    name = UnicodeAttribute()
    pygments_language = UnicodeAttribute()
    url_template = UnicodeAttribute()
