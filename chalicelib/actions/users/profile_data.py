"""Users' values of custom profile fields: PATCH /users/me/profile_data and its events.

Values live on the user as profile_data {"<field id>": {"value", "rendered_value"?}}, with
the HTML stored at write time so that reading a profile needs no field definitions.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from chalicelib.actions.users.profile_fields import (
    RENDERED_TYPES,
    is_url,
)
from chalicelib.actions.users.reads.access import user_access_audience
from chalicelib.actions.users.reads.events import CustomProfileFieldValue, RealmUserUpdateEvent
from chalicelib.actions.users.reads.profile_fields import (
    DATE,
    EXTERNAL_ACCOUNT,
    LONG_TEXT,
    PRONOUNS,
    SELECT,
    SHORT_TEXT,
    URL,
    USER,
    realm_profile_fields,
)
from chalicelib.core.errors import UNKNOWN_USER, ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event
from chalicelib.models.base import (
    MAX_TRANSACTION_ITEMS,
    transaction,
)
from chalicelib.models.profile_fields import ProfileField
from chalicelib.models.races import retry_lost_races
from chalicelib.models.users import User
from chalicelib.rules.markdown import render_markdown

SHORT_VALUE_MAX_LENGTH = 50
LONG_VALUE_MAX_LENGTH = 500
URL_MAX_LENGTH = 2048
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_ATTEMPTS = 5


def _check_text(field: ProfileField, value: Any, limit: int) -> str:
    if not isinstance(value, str):
        raise ApiError(f"{field.name} must be a string")
    if len(value) > limit:
        raise ApiError(f"{field.name} is over the limit of {limit} characters")
    return value


def _user_ids(field: ProfileField, value: Any) -> list[int]:
    if isinstance(value, str):   # also accepted JSON-encoded, the form values are shown in
        try:
            value = json.loads(value)
        except ValueError:
            raise ApiError(f"{field.name} must be a list") from None
    if not isinstance(value, list) or any(
            isinstance(i, bool) or not isinstance(i, int) for i in value):
        raise ApiError(f"{field.name} must be a list of user IDs")
    return list(dict.fromkeys(value))


def check_profile_value(field: ProfileField, value: Any) -> str | None:
    """The text to store for this value (None clears), or the reason it is invalid.

    Person values are checked against the realm's users by the caller.
    """
    if value is None or value in ("", []):
        return None
    kind = field.field_type
    if kind == USER:
        ids = _user_ids(field, value)
        return json.dumps(ids) if ids else None
    if kind == LONG_TEXT:
        return _check_text(field, value, LONG_VALUE_MAX_LENGTH)
    if kind in (SHORT_TEXT, PRONOUNS, EXTERNAL_ACCOUNT):
        return _check_text(field, value, SHORT_VALUE_MAX_LENGTH)
    if kind == SELECT:
        text = _check_text(field, value, SHORT_VALUE_MAX_LENGTH)
        if text not in (field.field_data or {}):
            raise ApiError(f"'{text}' is not one of the choices of '{field.name}'.")
        return text
    if kind == DATE:
        text = _check_text(field, value, SHORT_VALUE_MAX_LENGTH)
        try:
            if not DATE_RE.match(text):
                raise ValueError(text)
            date.fromisoformat(text)
        except ValueError:
            raise ApiError(f"{field.name} must be a date (YYYY-MM-DD)") from None
        return text
    if kind == URL:
        text = _check_text(field, value, URL_MAX_LENGTH)
        if not is_url(text):
            raise ApiError(f"{field.name} must be a URL")
        return text
    raise ApiError("Unknown custom profile field type.")


def _check_people(realm_id: int, user_ids: set[int]) -> None:
    found = {u.user_id: u for u in User.batch_get([(realm_id, i) for i in user_ids])}
    for user_id in sorted(user_ids):
        user = found.get(user_id)
        if user is None:
            raise ApiError(f"No user with ID {user_id} exists")
        if not user.is_active:
            raise ApiError(f"User {user_id} is deactivated")
        if user.is_bot:
            raise ApiError(f"User {user_id} is a bot")


def _stored_value(entry: Any) -> str | None:
    value: str | None = entry.get("value") if isinstance(entry, dict) else entry
    return value


def profile_entry(field: ProfileField, value: str) -> dict[str, str]:
    """What profile_data stores for a value: the API shape, HTML rendered now."""
    entry = {"value": value}
    if field.field_type in RENDERED_TYPES:
        entry["rendered_value"] = render_markdown(value)
    return entry


def check_profile_data(caller: Principal, data: Sequence[Mapping[str, Any]],
                       target_is_bot: bool | None = None
                       ) -> list[tuple[ProfileField, str | None]]:
    """Each named field with the value to store (None clears), all checked."""
    if caller.is_bot if target_is_bot is None else target_is_bot:
        raise ApiError("Bots cannot have custom profile fields")
    if not data:
        raise ApiError("No profile data given")
    if len(data) > MAX_TRANSACTION_ITEMS - 1:   # one event per value, plus the user
        raise ApiError(f"At most {MAX_TRANSACTION_ITEMS - 1} values at once")
    ids = [item["id"] for item in data]
    if len(set(ids)) != len(ids):
        raise ApiError("Each field may be named only once")
    fields = {f.field_id: f for f in realm_profile_fields(caller.realm_id)}
    checked, people = [], set()
    for item in data:
        field = fields.get(item["id"])
        if field is None:
            raise ApiError(f"No custom profile field has ID {item['id']}.")
        if not field.editable_by_user and not caller.is_admin:
            raise ApiError("Only administrators can change this field; ask one of them to update it.")
        value = check_profile_value(field, item.get("value"))
        if field.field_type == USER and value is not None:
            people.update(json.loads(value))
        checked.append((field, value))
    if people:
        _check_people(caller.realm_id, people)
    return checked


def do_update_profile_data(caller: Principal, data: Sequence[Mapping[str, Any]],
                           target: User | None = None) -> None:
    """Sets or clears the caller's values; one event per value that changed.

    Each field is its own document path, conditioned on the value that was read, so
    concurrent changes to different fields both stick. (Every user is created with the
    profile_data map that these paths need.)
    """
    # `target`: another user, whose values an administrator sets (PATCH /users/{id}).
    user_id = caller.user_id if target is None else target.user_id
    checked = check_profile_data(caller, data, None if target is None else target.is_bot)
    def attempt() -> None:
        user = User.get_or_none(caller.realm_id, user_id)
        if user is None or not user.is_active:
            raise ApiError(UNKNOWN_USER)
        stored = user.profile_data.as_dict() if user.profile_data else {}
        actions, conditions = [], []
        events: list[RealmUserUpdateEvent] = []
        for field, value in checked:
            key = str(field.field_id)
            path = User.profile_data[key]
            current = stored.get(key)
            if _stored_value(current) == value:
                continue   # unchanged: no write, no event
            entry = profile_entry(field, value) if value is not None else None
            if current is None:
                conditions.append(path.does_not_exist())
            elif isinstance(current, str):   # an entry written as bare text
                conditions.append(path == current)
            else:
                conditions.append(User.profile_data[key]["value"] == current.get("value"))
            actions.append(path.set(entry) if entry is not None else path.remove())
            person_field: CustomProfileFieldValue = {"id": field.field_id, "value": value}
            if entry is not None and "rendered_value" in entry:
                person_field["rendered_value"] = entry["rendered_value"]
            events.append({"type": "realm_user", "op": "update",
                           "person": {"user_id": user.user_id,
                                      "custom_profile_field": person_field}})
        if not actions:
            return
        condition = User.is_active == True
        for part in conditions:
            condition &= part
        with transaction() as tx:
            tx.update(user, actions=actions, condition=condition)
            for event in events:
                add_event(tx, caller.realm_id, event, user_access_audience(user.user_id))

    retry_lost_races(attempt, conflict="The profile changed concurrently; try again.",
                     attempts=MAX_ATTEMPTS)

