"""Outgoing-webhook deliveries: one item per (message, bot), so a delivery happens once."""
from __future__ import annotations

from pynamodb.attributes import NumberAttribute, TTLAttribute, UnicodeAttribute

from chalicelib.models.base import BaseModel, table_meta


def delivery_key(realm_id: int, message_id: int) -> str:
    return f"{realm_id}#{message_id}"


class WebhookDelivery(BaseModel):
    """Claimed before the POST ("sending", with the time) and closed after it ("done")."""

    Meta = table_meta("webhook_deliveries")
    message_key = UnicodeAttribute(hash_key=True)    # delivery_key(realm_id, message_id)
    bot_id = NumberAttribute(range_key=True)
    status = UnicodeAttribute()                      # "sending" or "done"
    claimed_at = NumberAttribute()
    expires_at = TTLAttribute()
