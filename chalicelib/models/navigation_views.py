"""A user's navigation views (feature level 390): built-in views' settings and custom views."""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class NavigationView(BaseModel):
    Meta = table_meta("navigation_views")
    user_key = UnicodeAttribute(hash_key=True)       # "<realm_id>#<user_id>"
    fragment = UnicodeAttribute(range_key=True)      # the view's URL hash, e.g. "inbox"
    is_pinned = BooleanAttribute()
    name = UnicodeAttribute(null=True)               # custom views only
    created = IntegerAttribute()                     # milliseconds: the listing's order
