"""POST /users/me/presence: recording a user's presence, and the presence event.

Presence is the most frequent write of a chat server: every connected client pings
about once a minute. A ping decides from the user's current item (read anyway: with
the realm's presence unless `ping_only`, else one eventually consistent GetItem)
whether anything needs writing, as the reference does: a timestamp is refreshed only
when it is older than MIN_UPDATE_SECONDS, so a user costs at most one write a minute
however many clients they have, and users with no client connected cost nothing (their
item expires by TTL). Only a user coming back online (or seen for the first time)
writes a transaction with the presence event; every other ping is one UpdateItem.
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, TypedDict

from pynamodb.exceptions import PutError, TransactWriteError, UpdateError
from pynamodb.expressions.update import Action

from chalicelib.actions.presence.reads.snapshot import (
    SIMPLIFIED_PRESENCE,
    UpdatePresenceResult,
    presence_response,
    read_realm_presence,
)
from chalicelib.actions.users.reads.access import user_access_audience
from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import OutboxEntry, add_event
from chalicelib.models.base import (
    is_condition_failure,
    is_write_condition_failure,
    transaction,
)
from chalicelib.models.presence import Presence, PresenceRow, presence_expiry
from chalicelib.models.users import User
from chalicelib.rules import presence_rules
from chalicelib.rules.presence_rules import (
    BACK_ONLINE_SECONDS,
    MIN_UPDATE_SECONDS,
    LegacyClientPresence,
    ModernPresence,
    Status,
    legacy_event_status,
    modern_presence,
)
from chalicelib.rules.user_settings import effective_settings


class PresenceEventDetail(TypedDict):
    website: LegacyClientPresence


class PresenceEvent(TypedDict):
    """Sent when a user comes (back) online, to those who can access the user: the
    legacy form, for queues without the simplified_presence_events capability."""

    type: Literal["presence"]
    user_id: int
    email: str
    server_timestamp: float
    presence: PresenceEventDetail


class SimplifiedPresenceEvent(TypedDict):
    """The same, in the modern format keyed by user id (level 419), for queues with the
    simplified_presence_events capability."""

    type: Literal["presence"]
    presences: dict[str, ModernPresence]




def update_own_presence(caller: Principal, *, status: Status,
                        ping_only: bool, slim_presence: bool, last_update_id: int | None,
                        history_limit_days: int | None) -> UpdatePresenceResult:
    if history_limit_days is not None and history_limit_days < 0:
        raise ApiError("Invalid history_limit_days")
    now = presence_rules.now()
    if ping_only:
        own = None if caller.is_bot else Presence.get_or_none(
            caller.realm_id, caller.user_id, consistent_read=False)
        record_presence(caller, status, own, now)
        return {}
    snapshot = read_realm_presence(caller.realm_id)
    written = record_presence(caller, status, snapshot.items.get(caller.user_id), now)
    if written is not None:
        snapshot.items[caller.user_id] = written
    return presence_response(caller, snapshot, modern=slim_presence or last_update_id is not None,
                             last_update_id=last_update_id,
                             history_limit_days=history_limit_days)


def record_presence(caller: Principal, status: Status,
                    own: Presence | PresenceRow | None, now: float) -> Presence | None:
    """Writes what the ping changes, if anything; returns the item as written."""
    if caller.is_bot or (own is not None and own.hidden):
        return None   # bots have no presence; a hidden user's is never recorded
    seconds = int(now)
    date_joined = None
    if own is None:   # seen for the first time (in two weeks): hidden by their settings?
        user = User.get_or_none(caller.realm_id, caller.user_id, consistent_read=False)
        if user is None:
            return None
        if not effective_settings(user.stored_settings())["presence_enabled"]:
            _hide(caller)
            return None
        date_joined = int(user.date_joined)
    active = status == "active"
    last_active = own.active_at if own is not None else None
    stale_connected = own is None or seconds - int(own.connected_at or 0) > MIN_UPDATE_SECONDS
    stale_active = active and (last_active is None or
                               seconds - int(last_active) > MIN_UPDATE_SECONDS)
    if not (stale_connected or stale_active):
        return None
    item = Presence(caller.realm_id, caller.user_id, email=caller.email,
                    active_at=seconds if active else (last_active or date_joined),
                    connected_at=seconds, update_id=int(now * 1000),
                    expires_at=presence_expiry(datetime.fromtimestamp(now, UTC)))
    back_online = own is None or (active and (last_active is None or
                                              seconds - int(last_active) > BACK_ONLINE_SECONDS))
    return item if _write(caller, item, back_online, now) else None


def _write(caller: Principal, item: Presence, with_event: bool, now: float) -> bool:
    """One UpdateItem, or with the presence event one transaction; never over a marker."""
    actions: list[Action] = [Presence.email.set(item.email), Presence.connected_at.set(item.connected_at),
               Presence.update_id.set(item.update_id), Presence.expires_at.set(item.expires_at)]
    if item.active_at is not None:
        actions.append(Presence.active_at.set(item.active_at))
    target = Presence(caller.realm_id, caller.user_id)
    condition = Presence.hidden.does_not_exist()
    try:
        if not with_event:
            target.update(actions=actions, condition=condition)
            return True
        with transaction() as tx:
            tx.update(target, actions=actions, condition=condition)
            add_event(tx, caller.realm_id, *_event(caller, item, now))
    except UpdateError as error:
        if is_write_condition_failure(error):
            return False   # hidden meanwhile
        raise
    except TransactWriteError as error:
        if is_condition_failure(error):
            return False
        raise
    return True


def _hide(caller: Principal) -> None:
    """The marker for a user whose settings hide them but who has none (e.g. from before
    presence was recorded), so later pings need no read of the user."""
    try:
        Presence(caller.realm_id, caller.user_id, hidden=True).save(
            condition=Presence.user_id.does_not_exist())
    except PutError as error:
        if not is_write_condition_failure(error):
            raise   # else a ping or a settings change wrote first: theirs stands


def _event(caller: Principal, item: Presence, now: float) -> OutboxEntry:
    """The modern form, and the legacy one for queues without the capability (below
    level 419, where the capability does not exist, the legacy form alone), for everyone
    who can access the user."""
    status, timestamp = legacy_event_status(*item.times())
    legacy: PresenceEvent = {
        "type": "presence", "user_id": caller.user_id, "email": caller.email,
        "server_timestamp": now,
        "presence": {"website": {"client": "website", "status": status,
                                 "timestamp": timestamp, "pushable": False}}}
    audience = user_access_audience(caller.user_id)
    if not level_reached(419):
        return OutboxEntry(legacy, audience)
    modern: SimplifiedPresenceEvent = {
        "type": "presence", "presences": {str(caller.user_id): modern_presence(*item.times())}}
    return OutboxEntry(modern, audience, {"without_capability": {
        "capability": SIMPLIFIED_PRESENCE, "event": legacy}})
