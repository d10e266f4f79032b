"""Messages the fan-out has not yet given their recipients' unread markers.

A send writes one `PendingDelivery` beside the message (in its transaction); the
fan-out deletes it once every recipient's marker is written. While it exists, the
message is unread for each recipient who has not marked it read (`read_by`): readers
tell that from the message and this item, without a marker. A mark-read that comes
first adds the reader to `read_by` (conditioned on the item existing); the fan-out
removes those readers' markers before it deletes the item, conditioned on `read_by`
unchanged since it read it, so a mark-read never loses to the marker write.
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute

from chalicelib.models.attributes import IntegerAttribute, IntegerSetAttribute
from chalicelib.models.base import BaseModel, table_meta


class PendingDelivery(BaseModel):
    """One per message in flight, in its realm's partition (read with one Query)."""

    Meta = table_meta("pending_deliveries")
    realm_id = IntegerAttribute(hash_key=True)
    message_id = IntegerAttribute(range_key=True)
    # Whether the sender's own copy is read (as the fan-out's flags say).
    read_by_sender = BooleanAttribute(default=True)
    # Recipients who marked it read before their markers were written.
    read_by = IntegerSetAttribute(null=True)
    # Counts changes of read_by, so the fan-out deletes the item only as it read it.
    changes = IntegerAttribute(null=True)
