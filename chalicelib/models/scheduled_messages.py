"""Scheduled messages and reminders: one item per message a user scheduled, in the
user's partition."""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute, list_of
from chalicelib.models.base import BaseModel, table_meta


class ScheduledMessage(BaseModel):
    """Undelivered until `delivered_message_id` is set (in the sending transaction), so
    a schedule that fires twice sends once; `failed` when it could not be sent."""

    Meta = table_meta("scheduled_messages")
    user_key = UnicodeAttribute(hash_key=True)          # "<realm_id>#<sender id>"
    scheduled_message_id = IntegerAttribute(range_key=True)
    realm_id = IntegerAttribute()
    sender_id = IntegerAttribute()
    type = UnicodeAttribute()                           # "stream" or "private"
    stream_id = IntegerAttribute(null=True)
    recipient_ids = list_of(IntegerAttribute, default=list)   # direct: the recipients
    topic = UnicodeAttribute(null=True)
    content = UnicodeAttribute()
    rendered_content = UnicodeAttribute()
    scheduled_delivery_timestamp = IntegerAttribute()
    read_by_sender = BooleanAttribute(null=True)
    failed = BooleanAttribute(default=False)
    failure = UnicodeAttribute(null=True)               # why it could not be sent
    delivered_message_id = IntegerAttribute(null=True)
    # A reminder (actions/messages/reminders.py): the message it is about.
    reminder_target_message_id = IntegerAttribute(null=True)
    version = IntegerAttribute(default=0)
