"""The organization's linkifiers: patterns the renderer turns into links, in their order."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute, list_of
from chalicelib.models.base import BaseModel, table_meta


class Linkifier(BaseModel):
    Meta = table_meta("linkifiers")
    realm_id = IntegerAttribute(hash_key=True)
    linkifier_id = IntegerAttribute(range_key=True)   # allocate_id(realm_id, "linkifier")
    pattern = UnicodeAttribute()
    url_template = UnicodeAttribute()
    order = IntegerAttribute()                        # processing order, lowest first
    # For reverse linkification by clients (levels 471, 478); absent: none.
    example_input = UnicodeAttribute(null=True)
    reverse_template = UnicodeAttribute(null=True)
    alternative_url_templates = list_of(UnicodeAttribute, null=True)


def realm_linkifiers(realm_id: int) -> list[Linkifier]:
    """The realm's linkifiers in processing order (one Query)."""
    items = list(Linkifier.query(realm_id, consistent_read=True))
    return sorted(items, key=lambda i: (i.order, i.linkifier_id))
