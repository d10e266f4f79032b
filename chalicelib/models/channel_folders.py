"""Channel folders: named groups of channels in an organization."""
from __future__ import annotations

from pynamodb.attributes import (
    BooleanAttribute,
    UnicodeAttribute,
)

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class ChannelFolder(BaseModel):
    Meta = table_meta("channel_folders")
    realm_id = IntegerAttribute(hash_key=True)
    folder_id = IntegerAttribute(range_key=True)      # allocate_id(realm_id, "folder")
    name = UnicodeAttribute()
    description = UnicodeAttribute(default="")
    rendered_description = UnicodeAttribute(default="")
    creator_id = IntegerAttribute(null=True)
    date_created = IntegerAttribute()
    is_archived = BooleanAttribute(default=False)
    # Where clients list it (level 414): new folders come last; PATCH /channel_folders
    # numbers them all from 0. Absent on folders made before it: 0.
    order = IntegerAttribute(null=True)
    # How many channels are in it, kept in the transaction that moves a channel in or
    # out, so archiving can refuse a folder in use without reading the channels.
    channel_count = IntegerAttribute(null=True)
