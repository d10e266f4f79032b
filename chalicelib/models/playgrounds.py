"""Code playgrounds: where a code block of a language opens."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class Playground(BaseModel):
    Meta = table_meta("playgrounds")
    realm_id = IntegerAttribute(hash_key=True)
    playground_id = IntegerAttribute(range_key=True)   # allocate_id(realm_id, "playground")
    name = UnicodeAttribute()
    pygments_language = UnicodeAttribute()
    url_template = UnicodeAttribute()
