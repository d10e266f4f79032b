"""Per-realm atomic counters that hand out integer ids."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class Counter(BaseModel):
    """Per-realm integer id counters: one item per realm, one attribute per kind."""

    Meta = table_meta("counters")
    scope = UnicodeAttribute(hash_key=True)
    realm = IntegerAttribute(null=True)
    user = IntegerAttribute(null=True)
    stream = IntegerAttribute(null=True)
    message = IntegerAttribute(null=True)
    group = IntegerAttribute(null=True)
    snippet = IntegerAttribute(null=True)
    playground = IntegerAttribute(null=True)
    upload = IntegerAttribute(null=True)
    emoji = IntegerAttribute(null=True)
    draft = IntegerAttribute(null=True)
    profile_field = IntegerAttribute(null=True)
    invite = IntegerAttribute(null=True)
    folder = IntegerAttribute(null=True)
    scheduled_message = IntegerAttribute(null=True)
    linkifier = IntegerAttribute(null=True)
    export = IntegerAttribute(null=True)
    device = IntegerAttribute(null=True)      # client devices (POST /register_client_device)
    # Not an id: the bytes of the realm's uploads (GET /attachments' upload_space_used).
    upload_space = IntegerAttribute(null=True)
    # Per-day scopes ("invites:<realm id>:<YYYY-MM-DD>"): invitation emails sent that day.
    invitations_sent = IntegerAttribute(null=True)
