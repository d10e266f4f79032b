"""Outgoing-webhook deliveries: one item per (message, bot), so a delivery happens once."""
from __future__ import annotations

from pynamodb.attributes import TTLAttribute, UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


def delivery_key(realm_id: int, message_id: int) -> str:
    return f"{realm_id}#{message_id}"


class WebhookDelivery(BaseModel):
    """Claimed before each attempt ("sending", with the time and the attempt number),
    then closed: "done", "retry" (the receiver was unreachable; may be claimed again),
    or "gave_up" (unreachable after the last attempt; the job belongs in the DLQ)."""

    Meta = table_meta("webhook_deliveries")
    message_key = UnicodeAttribute(hash_key=True)    # delivery_key(realm_id, message_id)
    bot_id = IntegerAttribute(range_key=True)
    status = UnicodeAttribute()
    claimed_at = IntegerAttribute()
    attempts = IntegerAttribute(default=0)
    expires_at = TTLAttribute()
