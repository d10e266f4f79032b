"""Muted users: each mute is stored twice, under the user who muted and under the one
muted, so listing one's mutes and finding who muted a sender are each one Query."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


def muter_key(realm_id: int, user_id: int) -> str:
    """The partition listing whom `user_id` muted."""
    return f"{realm_id}#muter#{user_id}"


def muted_key(realm_id: int, user_id: int) -> str:
    """The partition listing who muted `user_id`."""
    return f"{realm_id}#muted#{user_id}"


class UserMute(BaseModel):
    Meta = table_meta("muted_users")
    owner_key = UnicodeAttribute(hash_key=True)    # muter_key(...) or muted_key(...)
    user_id = IntegerAttribute(range_key=True)     # the other side of the mute
    timestamp = IntegerAttribute()                 # when muted, seconds


def muted_user_ids(realm_id: int, user_id: int) -> dict[int, int]:
    """Whom the user muted: {muted user id: timestamp} (one Query)."""
    return {int(m.user_id): int(m.timestamp)
            for m in UserMute.query(muter_key(realm_id, user_id), consistent_read=True)}


def muted_by(realm_id: int, user_id: int) -> set[int]:
    """Who muted the user (one Query)."""
    return {int(m.user_id)
            for m in UserMute.query(muted_key(realm_id, user_id), consistent_read=True)}
