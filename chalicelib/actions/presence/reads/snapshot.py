"""Reading presence: GET /realm/presence, GET /users/{user}/presence, the presences that
POST /users/me/presence answers with, and the presence state of POST /register.

A realm's presence is one Query of its partition in the presence table (one request
for a few thousand users: items are about 60 bytes), eventually consistent, filtered
here: hidden users, expired items (TTL deletion is lazy), users older than the history
limit or not newer than the client's last_update_id, and, for a guest the realm limits
(can_access_all_users_group), users the guest cannot access.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import NotRequired, TypedDict

from chalicelib.actions.users.reads.access import viewer_access
from chalicelib.actions.users.reads.email_lookup import users_by_api_email
from chalicelib.actions.users.reads.users import access_user_by_id
from chalicelib.core.errors import UNKNOWN_USER, ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.models.presence import (
    PRESENCE_RETENTION,
    Presence,
    PresenceRow,
    read_presence_rows,
)
from chalicelib.models.users import User
from chalicelib.rules import presence_rules
from chalicelib.rules.presence_rules import (
    OFFLINE_THRESHOLD_SECONDS,
    LegacyPresence,
    ModernPresence,
    answered_last_update_id,
    legacy_presence,
    legacy_status,
    modern_presence,
)

DEFAULT_HISTORY_DAYS = 14
# GET /users/{user}/presence: the modern timestamps from level 487 (instead of the
# legacy dicts), both formats and server_timestamp from 497.
MODERN_USER_PRESENCE_LEVEL = 487
BOTH_USER_PRESENCE_LEVEL = 497
SIMPLIFIED_PRESENCE = "simplified_presence_events"   # the client capability (level 419)


class UpdatePresenceResult(TypedDict):
    """Empty for ping_only requests."""

    presences: NotRequired[dict[str, ModernPresence | LegacyPresence]]
    server_timestamp: NotRequired[float]
    presence_last_update_id: NotRequired[int]


class RealmPresenceResult(TypedDict):
    presences: dict[str, LegacyPresence]
    server_timestamp: float


class PresenceData(TypedDict):
    """A realm's presence as a reader sees it, with the id to fetch changes after."""

    presences: dict[str, ModernPresence | LegacyPresence]
    presence_last_update_id: int
    server_timestamp: float


class ClientStatus(TypedDict):
    status: str          # "active" or "idle"; "aggregated" may also say "offline"
    timestamp: int


class UserPresenceDetail(TypedDict):
    """The legacy format (website, aggregated) below level 487 and again from 497; the
    modern one (active_timestamp, idle_timestamp) from 487."""

    website: NotRequired[ClientStatus]
    aggregated: NotRequired[ClientStatus]
    active_timestamp: NotRequired[int]
    idle_timestamp: NotRequired[int]


class UserPresenceResult(TypedDict):
    presence: UserPresenceDetail
    server_timestamp: NotRequired[float]   # level 497


@dataclass
class RealmPresence:
    """The realm's presence items as one Query read them, and when."""

    items: dict[int, Presence | PresenceRow] = field(default_factory=dict)
    read_at: float = 0.0


def read_realm_presence(realm_id: int) -> RealmPresence:
    started = presence_rules.now()
    return RealmPresence({row.user_id: row for row in read_presence_rows(realm_id)},
                         started)


def presence_response(caller: Principal, snapshot: RealmPresence, *, modern: bool,
                      last_update_id: int | None, history_limit_days: int | None
                      ) -> UpdatePresenceResult:
    state = _state(caller, snapshot, modern=modern, last_update_id=last_update_id,
                   history_limit_days=history_limit_days)
    return {"presences": state["presences"], "server_timestamp": state["server_timestamp"],
            "presence_last_update_id": state["presence_last_update_id"]}


def presence_data(caller: Principal, slim_presence: bool, history_limit_days: int | None,
                  snapshot: RealmPresence | None = None) -> PresenceData:
    """`snapshot`: the realm's presence if already read (registration shares it)."""
    return _state(caller, snapshot or read_realm_presence(caller.realm_id),
                  modern=slim_presence, last_update_id=None,
                  history_limit_days=history_limit_days)


def get_realm_presence(caller: Principal) -> RealmPresenceResult:
    snapshot = read_realm_presence(caller.realm_id)
    items, _ = _visible(caller, snapshot, None, None)
    return {"presences": {str(i.email): legacy_presence(*i.times(), snapshot.read_at)
                          for i in items},
            "server_timestamp": snapshot.read_at}


def get_user_presence(caller: Principal, user_id_or_email: str) -> UserPresenceResult:
    user = _target(caller, user_id_or_email)
    if user.is_bot:
        raise ApiError("Bots have no presence.")
    item = Presence.get_or_none(caller.realm_id, user.user_id, consistent_read=False)
    now = presence_rules.now()
    if item is None or not item.is_visible(datetime.fromtimestamp(now, UTC)):
        raise ApiError(f"{user_id_or_email} has no presence information yet")
    detail: UserPresenceDetail = {}
    if level_reached(MODERN_USER_PRESENCE_LEVEL):
        modern = modern_presence(*item.times())
        detail["active_timestamp"] = modern["active_timestamp"]
        detail["idle_timestamp"] = modern["idle_timestamp"]
    if not level_reached(MODERN_USER_PRESENCE_LEVEL) or level_reached(
            BOTH_USER_PRESENCE_LEVEL):
        status, timestamp = legacy_status(*item.times(), now)
        aggregated = "offline" if now - timestamp > OFFLINE_THRESHOLD_SECONDS else status
        detail.update({"website": {"status": status, "timestamp": timestamp},
                       "aggregated": {"status": aggregated, "timestamp": timestamp}})
    result: UserPresenceResult = {"presence": detail}
    if level_reached(BOTH_USER_PRESENCE_LEVEL):
        result["server_timestamp"] = now
    return result


def _target(caller: Principal, user_id_or_email: str) -> User:
    if user_id_or_email.isascii() and user_id_or_email.isdigit() and \
            len(user_id_or_email) < 16:
        return access_user_by_id(caller, int(user_id_or_email))
    # By API address only, as the reference: a hidden person's real address names nobody.
    user = users_by_api_email(caller.realm_id, [user_id_or_email]).get(user_id_or_email)
    if user is None:
        raise ApiError(UNKNOWN_USER)
    return access_user_by_id(caller, user.user_id)


def _state(caller: Principal, snapshot: RealmPresence, *, modern: bool,
           last_update_id: int | None, history_limit_days: int | None) -> PresenceData:
    items, newest = _visible(caller, snapshot, last_update_id, history_limit_days)
    presences: dict[str, ModernPresence | LegacyPresence] = {
        str(i.user_id): modern_presence(*i.times()) for i in items} if modern else {
        str(i.email): legacy_presence(*i.times(), snapshot.read_at) for i in items}
    return {"presences": presences, "server_timestamp": snapshot.read_at,
            "presence_last_update_id": answered_last_update_id(
                last_update_id, newest, int(snapshot.read_at * 1000))}


def _visible(caller: Principal, snapshot: RealmPresence, last_update_id: int | None,
             history_limit_days: int | None
             ) -> tuple[list[Presence | PresenceRow], int | None]:
    """The items this caller sees, and the newest update id among them."""
    now = snapshot.read_at
    access = viewer_access(caller)   # reads nothing for members and above
    since = None
    if last_update_id is None or last_update_id <= 0:   # as the reference: else ignored
        days = DEFAULT_HISTORY_DAYS if history_limit_days is None else history_limit_days
        since = now - min(days * 86400, PRESENCE_RETENTION.total_seconds())
    as_datetime = datetime.fromtimestamp(now, UTC)
    found = [item for user_id, item in sorted(snapshot.items.items())
             if item.is_visible(as_datetime) and access.can_access_user_id(user_id)
             and (since is None or item.times()[1] >= since)
             and (last_update_id is None or int(item.update_id or 0) > last_update_id)]
    newest = max((int(i.update_id or 0) for i in found), default=None)
    return found, newest
