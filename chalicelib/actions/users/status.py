"""User statuses (§4.9, §4.10): text and emoji, plus the deprecated `away` flag.

`away` is the inverse of the presence_enabled setting; a request that changes it writes
the setting, its user_settings event, the status and the user_status event in one
transaction. The status write is conditioned on the status that was read.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from chalicelib.actions.realm.reads.emoji import check_emoji_request, emoji_data
from chalicelib.actions.users.reads.access import user_access_audience
from chalicelib.actions.users.reads.status import UserStatusDict, _presence_enabled, user_status_dict
from chalicelib.actions.users.reads.users import access_user_by_id
from chalicelib.actions.users.settings import settings_event
from chalicelib.core.errors import NOT_PERMITTED, ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event
from chalicelib.models.base import transaction
from chalicelib.models.presence import set_presence_hidden
from chalicelib.models.races import retry_lost_races
from chalicelib.models.user_status import UserStatus
from chalicelib.models.users import User
from chalicelib.rules.timeutil import now_seconds

MAX_STATUS_TEXT_LENGTH = 60
ADMIN_BOTS_LEVEL = 473   # administrator bots may set others' statuses


class UserStatusResult(TypedDict):
    status: UserStatusDict


class UserStatusEvent(TypedDict):
    """A status change: the fields the request changed."""

    type: Literal["user_status"]
    user_id: int
    away: NotRequired[bool]
    status_text: NotRequired[str]
    emoji_name: NotRequired[str]
    emoji_code: NotRequired[str]
    reaction_type: NotRequired[str]


@dataclass(frozen=True)
class StatusChange:
    """What a request asks to change; None leaves a field as it is."""

    status_text: str | None = None
    emoji_name: str | None = None
    emoji_code: str | None = None
    reaction_type: str | None = None
    away: bool | None = None


def get_user_status(caller: Principal, user_id: int) -> UserStatusResult:
    user = access_user_by_id(caller, user_id)
    status = UserStatus.get_or_none(caller.realm_id, user_id)
    return {"status": user_status_dict(status, _presence_enabled(user))}


def check_update_own_status(caller: Principal, change: StatusChange) -> EmptyResult:
    _update_status(caller, caller.user_id, _checked(caller.realm_id, change))
    return {}


def check_update_user_status(caller: Principal, user_id: int, change: StatusChange
                             ) -> EmptyResult:
    # Bots, even administrators, only from level 473 (as the reference).
    if not caller.is_admin or (caller.is_bot and not level_reached(ADMIN_BOTS_LEVEL)):
        raise ApiError(NOT_PERMITTED)
    access_user_by_id(caller, user_id, allow_deactivated=False)
    _update_status(caller, user_id, _checked(caller.realm_id, change))
    return {}


def _checked(realm_id: int, change: StatusChange) -> StatusChange:
    """The change with the text trimmed and the emoji complete and valid, or an error."""
    text = change.status_text.strip() if change.status_text is not None else None
    if text is not None and len(text) > MAX_STATUS_TEXT_LENGTH:
        raise ApiError(f"status_text is over the limit of {MAX_STATUS_TEXT_LENGTH} characters")
    name, code, kind = change.emoji_name, change.emoji_code, change.reaction_type
    if change.away is None and text is None and name is None:
        raise ApiError("The request sets nothing.")
    if name == "":
        code, kind = "", ""     # clears the emoji
    elif name is not None:
        if code is None or kind is None:
            found = emoji_data(realm_id, name)
            code = found.emoji_code if code is None else code
            kind = found.reaction_type if kind is None else kind
        check_emoji_request(realm_id, name, code, kind)
    elif code or kind:
        raise ApiError("emoji_code and reaction_type need an emoji_name too.")
    return StatusChange(status_text=text, emoji_name=name, emoji_code=code,
                        reaction_type=kind, away=change.away)


def _update_status(caller: Principal, user_id: int, change: StatusChange) -> None:
    realm_id = caller.realm_id
    event: UserStatusEvent = {"type": "user_status", "user_id": user_id}
    if change.away is not None:
        event["away"] = change.away
    if change.status_text is not None:
        event["status_text"] = change.status_text
    if change.emoji_name is not None:
        event["emoji_name"] = change.emoji_name
        event["emoji_code"] = change.emoji_code or ""
        event["reaction_type"] = change.reaction_type or ""
    def attempt() -> None:
        current = UserStatus.get_or_none(realm_id, user_id)
        item = _merged(realm_id, user_id, current, change)
        with transaction() as tx:
            if change.away is not None:
                _set_presence_enabled(tx, caller, not change.away)
            read = (_unchanged(current) if current is not None
                    else UserStatus.user_id.does_not_exist())
            if item.status_text or item.emoji_name:
                tx.save(item, condition=read)
            elif current is not None:
                tx.delete(item, condition=read)   # nothing left: no status
            add_event(tx, realm_id, event, user_access_audience(user_id))

    retry_lost_races(attempt, conflict="The status changed concurrently; try again.")


def _merged(realm_id: int, user_id: int, current: UserStatus | None, change: StatusChange
            ) -> UserStatus:
    def pick(new: str | None, old: str) -> str:
        return new if new is not None else old

    return UserStatus(
        realm_id, user_id,
        status_text=pick(change.status_text, current.status_text if current else ""),
        emoji_name=pick(change.emoji_name, current.emoji_name if current else ""),
        emoji_code=pick(change.emoji_code, current.emoji_code if current else ""),
        reaction_type=pick(change.reaction_type, current.reaction_type if current else ""),
        timestamp=now_seconds())


def _unchanged(current: UserStatus) -> Any:
    return ((UserStatus.timestamp == current.timestamp)
            & (UserStatus.status_text == current.status_text)
            & (UserStatus.emoji_name == current.emoji_name)
            & (UserStatus.emoji_code == current.emoji_code)
            & (UserStatus.reaction_type == current.reaction_type))


def _set_presence_enabled(tx: Any, caller: Principal, value: bool) -> None:
    """The caller's presence_enabled setting, as PATCH /settings writes it, with its event."""
    user = User.get(caller.realm_id, caller.user_id)
    if _presence_enabled(user) == value:
        return
    # Conditioned on what was read, so a concurrent change makes this attempt retry.
    path = User.settings["presence_enabled"]
    stored = user.settings.as_dict()
    read = (path == stored["presence_enabled"] if "presence_enabled" in stored
            else path.does_not_exist())
    tx.update(User(caller.realm_id, caller.user_id), actions=[path.set(value)],
              condition=User.user_id.exists() & read)
    set_presence_hidden(tx, caller.realm_id, caller.user_id, not value)
    add_event(tx, caller.realm_id, *settings_event(caller, "presence_enabled", value))
