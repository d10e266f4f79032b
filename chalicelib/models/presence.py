"""User presence: one small item per user who connected recently, in their realm's partition.

Reading a realm's presence is one Query of its partition; the items are kept small
(one-letter attribute names) because that Query's cost is their total size, and every
client of the realm makes it about once a minute. Items expire by TTL two weeks after
the user's last connection; a user who hid their presence (presence_enabled false) has
a marker item instead, without expiry, that pings never overwrite.
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pynamodb.attributes import BooleanAttribute, TTLAttribute, UnicodeAttribute
from pynamodb.exceptions import DeleteError
from pynamodb.transactions import TransactWrite

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, is_write_condition_failure, table_meta

PRESENCE_RETENTION = timedelta(days=14)


class Presence(BaseModel):
    Meta = table_meta("presence")
    realm_id = IntegerAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)
    email = UnicodeAttribute(attr_name="e", null=True)           # the API email, for legacy keys
    active_at = IntegerAttribute(attr_name="a", null=True)        # last reported active (s)
    connected_at = IntegerAttribute(attr_name="c", null=True)     # last report of any kind (s)
    update_id = IntegerAttribute(attr_name="u", null=True)        # write time (ms), see actions
    hidden = BooleanAttribute(attr_name="h", null=True)          # presence_enabled is false
    expires_at = TTLAttribute(attr_name="x", null=True)

    def times(self) -> tuple[int, int]:
        """(active_at, connected_at) in seconds; never active counts as never since joining."""
        connected = int(self.connected_at or 0)
        return int(self.active_at if self.active_at is not None else connected), connected

    def is_visible(self, now: datetime) -> bool:
        """Recorded, not hidden, and not expired (TTL deletion is lazy)."""
        return not self.hidden and self.connected_at is not None and (
            self.expires_at is None or self.expires_at > now)


def presence_expiry(now: datetime | None = None) -> datetime:
    return (now or datetime.now(UTC)) + PRESENCE_RETENTION


def set_presence_hidden(tx: TransactWrite, realm_id: int, user_id: int, hidden: bool) -> None:
    """In the transaction that changes presence_enabled: hiding replaces whatever was
    recorded with the marker (pings are conditioned on its absence); showing again
    removes it, so the next ping records the user afresh."""
    if hidden:
        tx.save(Presence(realm_id, user_id, hidden=True))
    else:
        tx.delete(Presence(realm_id, user_id))


def forget_presence(realm_id: int, user_id: int) -> None:
    """A deactivated user's presence (a hiding marker stays: it outlives reactivation)."""
    try:
        Presence(realm_id, user_id).delete(condition=Presence.hidden.does_not_exist())
    except DeleteError as error:
        if not is_write_condition_failure(error):
            raise
