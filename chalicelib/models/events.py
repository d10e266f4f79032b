"""The event pipeline's tables: the outbox, event queues and their events."""
from __future__ import annotations

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex

from chalicelib.models.base import BaseModel, table_meta


class Outbox(BaseModel):
    """One event and its audience, written in the transaction of the change it reports.

    The table's stream drives the fan-out; records expire once fanned out.
    """

    Meta = table_meta("outbox")
    outbox_id = UnicodeAttribute(hash_key=True)
    realm_id = NumberAttribute()
    event = JSONAttribute()
    audience = JSONAttribute()
    created = NumberAttribute()
    expires_at = TTLAttribute()


class QueuesByUser(GlobalSecondaryIndex):
    class Meta:
        index_name = "by_user"
        projection = AllProjection()

    realm_id = NumberAttribute(hash_key=True)
    user_id = NumberAttribute(range_key=True)


class EventQueue(BaseModel):
    Meta = table_meta("event_queues")
    queue_id = UnicodeAttribute(hash_key=True)
    realm_id = NumberAttribute()
    user_id = NumberAttribute()
    last_event_id = NumberAttribute(default=-1)   # the highest id appended so far
    acked_through = NumberAttribute(default=-1)   # events up to here were pruned
    options = JSONAttribute()                     # event_types, narrow, capabilities
    # The owner's setting, kept here so the fan-out filters typing events without reading
    # every recipient; PATCH /settings updates the owner's live queues.
    receives_typing_notifications = BooleanAttribute(default=True)
    # The owner's role when registering, for events only some roles may see.
    role = NumberAttribute(null=True)
    created = NumberAttribute()
    expires_at = TTLAttribute()
    by_user = QueuesByUser()


class QueueEvent(BaseModel):
    """An event in a queue (sk `e#<zero-padded id>`) or a dedup marker (`d#<outbox id>`)."""

    Meta = table_meta("queue_events")
    queue_id = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    event = JSONAttribute(null=True)
    expires_at = TTLAttribute()
