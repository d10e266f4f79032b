"""The event pipeline's tables: the outbox, event queues, their events, and connections."""
from __future__ import annotations

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    TTLAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class Outbox(BaseModel):
    """One event and its audience, written in the transaction of the change it reports.

    The table's stream drives the fan-out; records expire once fanned out.
    """

    Meta = table_meta("outbox")
    outbox_id = UnicodeAttribute(hash_key=True)
    realm_id = IntegerAttribute()
    event = JSONAttribute()
    audience = JSONAttribute()
    facts = JSONAttribute(null=True)   # what the fan-out decides delivery by (EventFacts)
    created = IntegerAttribute()
    expires_at = TTLAttribute()


class QueuesByUser(GlobalSecondaryIndex["EventQueue"]):
    class Meta:
        index_name = "by_user"
        projection = AllProjection()

    realm_id = IntegerAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)


class EventQueue(BaseModel):
    """A client's event queue: its options and its life. Its events live in QueueEvent."""

    Meta = table_meta("event_queues")
    queue_id = UnicodeAttribute(hash_key=True)
    realm_id = IntegerAttribute()
    user_id = IntegerAttribute()
    # The highest id the client acknowledged; appends never go at or below it (a floor
    # for when the queue's newest events have expired).
    acked_through = IntegerAttribute(default=-1)
    options = JSONAttribute()                     # event_types, narrow, capabilities
    # The owner's setting, kept here so the fan-out filters typing events without reading
    # every recipient; PATCH /settings updates the owner's live queues.
    receives_typing_notifications = BooleanAttribute(default=True)
    # The owner's role when registering, for events only some roles may see.
    role = IntegerAttribute(null=True)
    # The SQS queue a waiting GET /events listens on; the fan-out sends it a wake-up
    # after each append (set by the first blocking poll).
    wake_url = UnicodeAttribute(null=True)
    created = IntegerAttribute()
    expires_at = TTLAttribute()
    # How long it lives unpolled (POST /register idle_queue_timeout, level 481); None:
    # the default, delivery/queues.QUEUE_IDLE_LIFETIME.
    idle_seconds = IntegerAttribute(null=True)
    by_user = QueuesByUser()


class QueueEvent(BaseModel):
    """Either a chunk of a queue's events or a payload that chunks refer to.

    Chunk: queue_id, sk `e#<zero-padded id of its first event>`; `events` holds one or
    more consecutive events (ids first..first+n-1), `keys` the dedup key of each (the
    outbox record and form it came from; "" for heartbeats), `written` when it was
    appended (ms), `conn` the WebSocket connection the queue pushes to (carried from
    chunk to chunk, so an appender always reads it with the tail).
    Payload: queue_id `payload:<key>`, sk `p`: one large event form stored once; chunk
    events refer to it with `_payload`.
    """

    Meta = table_meta("queue_events")
    queue_id = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    events = JSONAttribute(null=True)
    keys = JSONAttribute(null=True)
    written = IntegerAttribute(null=True)
    conn = UnicodeAttribute(null=True)
    payload = JSONAttribute(null=True)
    expires_at = TTLAttribute()


class UserQueues(BaseModel):
    """The queue ids of one user (user_id 0: the realm's all_public_streams queues).

    The fan-out reads these with BatchGetItem, so finding the queues of an audience costs
    reads proportional to the audience. Ids of expired queues are removed lazily.
    """

    Meta = table_meta("user_queues")
    realm_id = IntegerAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)
    queue_ids = UnicodeSetAttribute(null=True)


class WsConnection(BaseModel):
    """A WebSocket connection of the push channel and the queue it follows."""

    Meta = table_meta("ws_connections")
    connection_id = UnicodeAttribute(hash_key=True)
    queue_id = UnicodeAttribute()
    realm_id = IntegerAttribute()
    user_id = IntegerAttribute()
    last_event_id = IntegerAttribute(default=-1)   # as given when connecting
    connected_at = IntegerAttribute()
    expires_at = TTLAttribute()
