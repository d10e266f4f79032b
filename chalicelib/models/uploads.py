"""Uploaded files: the S3 object's metadata and the messages that reference it."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex

from chalicelib.models.attributes import IntegerAttribute, IntegerSetAttribute
from chalicelib.models.base import BaseModel, table_meta


class AttachmentsByOwner(GlobalSecondaryIndex["Attachment"]):
    """A user's uploads: owner ids are per realm, so the realm is the sort key."""

    class Meta:
        index_name = "by_owner"
        projection = AllProjection()

    owner_id = IntegerAttribute(hash_key=True)
    realm_id = IntegerAttribute(range_key=True)


class Attachment(BaseModel):
    """One uploaded file. `path_id` is the S3 key and the URL path after /user_uploads/."""

    Meta = table_meta("attachments")
    realm_id = IntegerAttribute(hash_key=True)
    path_id = UnicodeAttribute(range_key=True)       # "<realm_id>/<random>/<safe name>"
    attachment_id = IntegerAttribute()
    owner_id = IntegerAttribute()
    name = UnicodeAttribute()
    size = IntegerAttribute()
    content_type = UnicodeAttribute(default="application/octet-stream")
    create_time = IntegerAttribute()                  # UNIX milliseconds (§2.3)
    message_ids = IntegerSetAttribute(null=True)      # messages whose content links it
    by_owner = AttachmentsByOwner()
