"""Marks of fan-out steps already done for an outbox record, so a redelivery skips them."""
from __future__ import annotations

from pynamodb.attributes import TTLAttribute, UnicodeAttribute

from chalicelib.models.base import BaseModel, table_meta


class FanoutMark(BaseModel):
    """`<step>:<outbox id>` exists once that step's writes for the record are complete.

    Lives as long as a stream record can be redelivered (the outbox's retention).
    """

    Meta = table_meta("fanout_marks")
    mark = UnicodeAttribute(hash_key=True)
    expires_at = TTLAttribute()
