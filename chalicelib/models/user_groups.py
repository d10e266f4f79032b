"""User groups: role-based system groups and named groups, for mentions and permissions."""
from __future__ import annotations

from typing import Any

from pynamodb.attributes import BooleanAttribute, MapAttribute, UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute, IntegerSetAttribute
from chalicelib.models.base import BaseModel, table_meta


class UserGroup(BaseModel):
    Meta = table_meta("user_groups")
    realm_id = IntegerAttribute(hash_key=True)
    group_id = IntegerAttribute(range_key=True)
    name = UnicodeAttribute()
    description = UnicodeAttribute(default="")
    is_system_group = BooleanAttribute(default=False)
    deactivated = BooleanAttribute(default=False)
    direct_members = IntegerSetAttribute(null=True)
    direct_subgroups = IntegerSetAttribute(null=True)
    creator_id = IntegerAttribute(null=True)
    date_created = IntegerAttribute()
    # The group's own permission settings (group-setting values, §2.7), by setting name;
    # settings not stored take their defaults (actions/groups/user_groups.py).
    group_settings: MapAttribute[str, Any] = MapAttribute(null=True)
    # Every change is conditioned on the version it read and bumps it
    # (actions/groups/user_groups.py).
    version = IntegerAttribute(null=True)
