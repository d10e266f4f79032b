"""User presence: one small item per user who connected recently, in their realm's partition.

Reading a realm's presence is one Query of its partition; the items are kept small
(one-letter attribute names) because that Query's cost is their total size, and every
client of the realm makes it about once a minute. Items expire by TTL two weeks after
the user's last connection; a user who hid their presence (presence_enabled false) has
a marker item instead, without expiry, that pings never overwrite.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pynamodb.attributes import BooleanAttribute, TTLAttribute, UnicodeAttribute
from pynamodb.exceptions import DeleteError
from pynamodb.transactions import TransactWrite

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, is_write_condition_failure, table_meta
from chalicelib.models.raw_items import RawItem, RawValues, query_rows

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
        return _times(self.active_at, self.connected_at)

    def is_visible(self, now: datetime) -> bool:
        return _is_visible(self.hidden, self.connected_at, self.expires_at, now)


def _times(active_at: int | None, connected_at: int | None) -> tuple[int, int]:
    """(active_at, connected_at) in seconds; never active counts as never since joining."""
    connected = int(connected_at or 0)
    return int(active_at if active_at is not None else connected), connected


def _is_visible(hidden: bool | None, connected_at: int | None,
                expires_at: datetime | None, now: datetime) -> bool:
    """Recorded, not hidden, and not expired (TTL deletion is lazy)."""
    return not hidden and connected_at is not None and (
        expires_at is None or expires_at > now)


@dataclass(slots=True)
class PresenceRow:
    """A presence item as a read of the realm's presence lists it: its values, without a
    model (registration reads thousands; `read_presence_rows`)."""

    user_id: int
    email: str | None = None
    active_at: int | None = None
    connected_at: int | None = None
    update_id: int | None = None
    hidden: bool | None = None
    expires_at: datetime | None = None

    def times(self) -> tuple[int, int]:
        return _times(self.active_at, self.connected_at)

    def is_visible(self, now: datetime) -> bool:
        return _is_visible(self.hidden, self.connected_at, self.expires_at, now)


# The item's names of what a row reads (the model's attr_names).
_NAMES = {name: getattr(Presence, name).attr_name for name in (
    "user_id", "email", "active_at", "connected_at", "update_id", "hidden", "expires_at")}


def presence_row(item: RawItem) -> PresenceRow:
    """A row from a raw presence item, as the model would read it."""
    raw, names = RawValues(item), _NAMES
    expires = raw.number(names["expires_at"])   # UNIX seconds, as TTLAttribute stores
    return PresenceRow(user_id=raw.number(names["user_id"]) or 0,
                       email=raw.text(names["email"]),
                       active_at=raw.number(names["active_at"]),
                       connected_at=raw.number(names["connected_at"]),
                       update_id=raw.number(names["update_id"]),
                       hidden=raw.flag(names["hidden"]),
                       expires_at=None if expires is None else datetime.fromtimestamp(expires, tz=UTC))


def read_presence_rows(realm_id: int) -> list[PresenceRow]:
    """The realm's presence items as rows: one Query, paged by DynamoDB."""
    return query_rows(Presence, realm_id, presence_row)


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
