"""Custom profile fields an organization defines (values live on the user, profile_data)."""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, JSONAttribute, UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class ProfileField(BaseModel):
    Meta = table_meta("profile_fields")
    realm_id = IntegerAttribute(hash_key=True)
    field_id = IntegerAttribute(range_key=True)        # allocate_id(realm_id, "profile_field")
    name = UnicodeAttribute()
    hint = UnicodeAttribute(default="")
    field_type = IntegerAttribute()                   # the reference's type numbers
    field_data = JSONAttribute(null=True)            # choices / external account settings
    order = IntegerAttribute(default=0)
    display_in_profile_summary = BooleanAttribute(default=False)
    required = BooleanAttribute(default=False)
    editable_by_user = BooleanAttribute(default=True)   # admins may always edit
    # Level 455: clients' typeahead matches users by this field's values too.
    use_for_user_matching = BooleanAttribute(default=False)
