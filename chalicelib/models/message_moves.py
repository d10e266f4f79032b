"""A record of a bulk move in progress, so a retry after a crash resumes it exactly once."""
from __future__ import annotations

from pynamodb.attributes import JSONAttribute, TTLAttribute, UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class MessageMove(BaseModel):
    """Written before the first batch of a multi-batch move, marked done after the last.

    Keyed by the target message: a client retrying the same request finds it, skips
    the messages already moved (their topic changed) and finishes the rest with the
    same edit timestamp, so every message gets exactly one history entry.
    """

    Meta = table_meta("message_moves")
    realm_id = IntegerAttribute(hash_key=True)
    message_id = IntegerAttribute(range_key=True)
    user_id = IntegerAttribute()
    edit_timestamp = IntegerAttribute()
    plan = JSONAttribute()             # source and destination, propagate mode, notifications
    status = UnicodeAttribute(default="moving")   # "moving" or "done"
    expires_at = TTLAttribute()
