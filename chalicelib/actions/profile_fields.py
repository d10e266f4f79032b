"""Custom profile fields: the realm's definitions, and each user's values of them.

Definitions are ProfileField items; a user's values live on the user as
profile_data {"<field id>": {"value", "rendered_value"?}}, with the HTML stored at write
time so that reading a profile needs no field definitions.
"""
from __future__ import annotations

import json
import re
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from pynamodb.exceptions import TransactWriteError, UpdateError

from chalicelib.actions.ids import allocate_id
from chalicelib.events.outbox import add_event
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError, ConflictError
from chalicelib.lib.markdown import render_markdown
from chalicelib.models.base import (
    MAX_TRANSACTION_ITEMS,
    is_condition_failure,
    transaction,
)
from chalicelib.models.profile import ProfileField
from chalicelib.models.realms import UniqueName
from chalicelib.models.users import User

SHORT_TEXT, LONG_TEXT, SELECT, DATE, URL, USER, EXTERNAL_ACCOUNT, PRONOUNS = range(1, 9)
# The reference's type numbers, with the names POST /register describes them by.
FIELD_TYPES = {
    SHORT_TEXT: ("SHORT_TEXT", "Text (short)"),
    LONG_TEXT: ("LONG_TEXT", "Text (long)"),
    SELECT: ("SELECT", "List of options"),
    DATE: ("DATE", "Date"),
    URL: ("URL", "Link"),
    USER: ("USER", "Users"),
    EXTERNAL_ACCOUNT: ("EXTERNAL_ACCOUNT", "External account"),
    PRONOUNS: ("PRONOUNS", "Pronouns"),
}
# As the reference's examples show, both text types carry a rendered_value.
RENDERED_TYPES = frozenset({SHORT_TEXT, LONG_TEXT})
# The reference's summary cannot show long text or people.
NOT_IN_SUMMARY = frozenset({LONG_TEXT, USER})
MAX_SUMMARY_FIELDS = 2
NAME_MAX_LENGTH = 40
HINT_MAX_LENGTH = 80
SHORT_VALUE_MAX_LENGTH = 50
LONG_VALUE_MAX_LENGTH = 500
URL_MAX_LENGTH = 2048
DEFAULT_EXTERNAL_ACCOUNTS = {
    "github": {"name": "GitHub", "hint": "Enter your GitHub username",
               "url_pattern": "https://github.com/%(username)s"},
    "twitter": {"name": "Twitter", "hint": "Enter your Twitter username",
                "url_pattern": "https://twitter.com/%(username)s"},
}
USERNAME_PLACEHOLDER = "%(username)s"
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_ATTEMPTS = 5


def profile_field_name_key(realm_id: int, name: str) -> tuple[str, str]:
    """The UniqueName claim that keeps field names unique per realm, ignoring case."""
    return f"realm:{realm_id}", f"profile_field:{name.strip().lower()}"


def realm_profile_fields(realm_id: int) -> list[ProfileField]:
    return sorted(ProfileField.query(realm_id), key=lambda f: (f.order, f.field_id))


def profile_field_dict(field: ProfileField) -> dict[str, Any]:
    """The reference's CustomProfileField (display_in_profile_summary only when true)."""
    data: dict[str, Any] = {
        "id": field.field_id, "name": field.name, "type": field.field_type,
        "hint": field.hint or "", "order": field.order,
        "field_data": json.dumps(field.field_data) if field.field_data else "",
        "required": bool(field.required), "editable_by_user": bool(field.editable_by_user),
    }
    if field.display_in_profile_summary:
        data["display_in_profile_summary"] = True
    return data


def custom_profile_field_types() -> dict[str, dict[str, Any]]:
    return {key: {"id": type_id, "name": name}
            for type_id, (key, name) in FIELD_TYPES.items()}


def profile_fields_state(realm_id: int) -> dict[str, Any]:
    """The custom_profile_fields part of POST /register."""
    return {"custom_profile_fields": [profile_field_dict(f)
                                      for f in realm_profile_fields(realm_id)],
            "custom_profile_field_types": custom_profile_field_types()}


def _require_admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise ApiError("Must be an organization administrator")


def _fields_event(fields: list[ProfileField]) -> dict[str, Any]:
    ordered = sorted(fields, key=lambda f: (f.order, f.field_id))
    return {"type": "custom_profile_fields", "fields": [profile_field_dict(f) for f in ordered]}


# Definitions ---------------------------------------------------------------------------

def _check_select_data(field_data: dict[str, Any]) -> dict[str, Any]:
    if not field_data:
        raise ApiError("Field must have at least one choice.")
    texts = set()
    for key, choice in field_data.items():
        if not key.strip():
            raise ApiError("'value' cannot be blank.")
        if not isinstance(choice, dict) or set(choice) != {"text", "order"}:
            raise ApiError(f"field_data[\"{key}\"] must have exactly 'text' and 'order'")
        for part in ("text", "order"):
            if not isinstance(choice[part], str) or not choice[part].strip():
                raise ApiError(f"field_data[\"{key}\"][\"{part}\"] cannot be blank.")
        texts.add(choice["text"].strip().lower())
    if len(texts) != len(field_data):
        raise ApiError("Field must not have duplicate choices.")
    return field_data


def _check_external_account_data(field_data: dict[str, Any]) -> dict[str, Any]:
    subtype = field_data.get("subtype")
    if subtype == "custom":
        pattern = field_data.get("url_pattern")
        if not isinstance(pattern, str) or not pattern:
            raise ApiError("Custom external account must define URL pattern")
        if pattern.count(USERNAME_PLACEHOLDER) != 1:
            raise ApiError("URL pattern must contain '%(username)s'.")
        if not _is_url(pattern.replace(USERNAME_PLACEHOLDER, "username")):
            raise ApiError("URL pattern is not a URL")
        return {"subtype": "custom", "url_pattern": pattern}
    if subtype not in DEFAULT_EXTERNAL_ACCOUNTS:
        raise ApiError("Invalid external account type")
    if "url_pattern" in field_data:
        raise ApiError("URL pattern is only for custom external accounts")
    return {"subtype": subtype}


def check_field_definition(field_type: int, name: str, hint: str,
                           field_data: dict[str, Any] | None
                           ) -> tuple[str, str, dict[str, Any] | None]:
    """The cleaned name, hint and field_data of a new field, or the reason it is invalid."""
    if field_type not in FIELD_TYPES:
        raise ApiError("Invalid field type.")
    data: dict[str, Any] | None = None
    if field_type == SELECT:
        data = _check_select_data(field_data or {})
    elif field_type == EXTERNAL_ACCOUNT:
        data = _check_external_account_data(field_data or {})
        default = DEFAULT_EXTERNAL_ACCOUNTS.get(data["subtype"])
        if default is not None:   # a known site names and explains itself
            name = name.strip() or default["name"]
            hint = hint.strip() or default["hint"]
    name, hint = name.strip(), hint.strip()
    if not name:
        raise ApiError("Label cannot be blank.")
    if len(name) > NAME_MAX_LENGTH:
        raise ApiError(f"name is too long (limit: {NAME_MAX_LENGTH} characters)")
    if len(hint) > HINT_MAX_LENGTH:
        raise ApiError(f"hint is too long (limit: {HINT_MAX_LENGTH} characters)")
    return name, hint, data


def do_create_profile_field(caller: Principal, *, name: str, hint: str, field_type: int,
                            field_data: dict[str, Any] | None,
                            display_in_profile_summary: bool, required: bool,
                            editable_by_user: bool) -> int:
    """Adds a field to the caller's realm and sends the realm the new list; returns its id."""
    _require_admin(caller)
    name, hint, data = check_field_definition(field_type, name, hint, field_data)
    existing = realm_profile_fields(caller.realm_id)
    if any(f.name.lower() == name.lower() for f in existing):
        raise ApiError("A field with that label already exists.")
    if display_in_profile_summary:
        if field_type in NOT_IN_SUMMARY:
            raise ApiError("Field type not supported for display in profile summary.")
        if sum(1 for f in existing if f.display_in_profile_summary) >= MAX_SUMMARY_FIELDS:
            raise ApiError(f"Only {MAX_SUMMARY_FIELDS} custom profile fields can be "
                           "displayed in the profile summary.")
    field_id = allocate_id(caller.realm_id, "profile_field")
    field = ProfileField(caller.realm_id, field_id, name=name, hint=hint,
                         field_type=field_type, field_data=data, order=field_id,
                         display_in_profile_summary=display_in_profile_summary,
                         required=required, editable_by_user=editable_by_user)
    scope, key = profile_field_name_key(caller.realm_id, name)
    try:
        with transaction() as tx:
            tx.save(field, condition=ProfileField.field_id.does_not_exist())
            tx.save(UniqueName(scope, key, target_id=field_id),
                    condition=UniqueName.name.does_not_exist())
            add_event(tx, caller.realm_id, _fields_event([*existing, field]), {"realm": True})
    except TransactWriteError as error:
        if is_condition_failure(error):   # another admin took the name meanwhile
            raise ApiError("A field with that label already exists.") from None
        raise
    return field_id


def access_profile_field(realm_id: int, field_id: int) -> ProfileField:
    field = ProfileField.get_or_none(realm_id, field_id)
    if field is None:
        raise ApiError(f"Field id {field_id} not found.")
    return field


def do_delete_profile_field(caller: Principal, field_id: int) -> None:
    """Removes a field, sends the realm the remaining list, and drops users' values of it."""
    _require_admin(caller)
    field = access_profile_field(caller.realm_id, field_id)
    remaining = [f for f in realm_profile_fields(caller.realm_id) if f.field_id != field_id]
    scope, key = profile_field_name_key(caller.realm_id, field.name)
    try:
        with transaction() as tx:
            tx.delete(field, condition=ProfileField.field_id.exists())
            tx.delete(UniqueName(scope, key))
            add_event(tx, caller.realm_id, _fields_event(remaining), {"realm": True})
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError(f"Field id {field_id} not found.") from None
        raise
    _remove_values(caller.realm_id, field_id)


def _remove_values(realm_id: int, field_id: int) -> None:
    """Drops a deleted field's values; ids are never reused, so a missed one only lingers."""
    path = User.profile_data[str(field_id)]
    for user in User.query(realm_id, filter_condition=path.exists()):
        try:
            user.update(actions=[path.remove()], condition=path.exists())
        except UpdateError as error:
            if not _is_conditional_failure(error):
                raise


def _is_conditional_failure(error: UpdateError) -> bool:
    cause = getattr(error, "cause_response_code", None)
    return cause == "ConditionalCheckFailedException"


# Values --------------------------------------------------------------------------------

def _is_url(value: str) -> bool:
    parts = urlsplit(value)
    return (parts.scheme in ("http", "https") and bool(parts.netloc)
            and not any(ch.isspace() for ch in value))


def _check_text(field: ProfileField, value: Any, limit: int) -> str:
    if not isinstance(value, str):
        raise ApiError(f"{field.name} is not a string")
    if len(value) > limit:
        raise ApiError(f"{field.name} is too long (limit: {limit} characters)")
    return value


def _user_ids(field: ProfileField, value: Any) -> list[int]:
    if isinstance(value, str):   # also accepted JSON-encoded, the form values are shown in
        try:
            value = json.loads(value)
        except ValueError:
            raise ApiError(f"{field.name} is not a list") from None
    if not isinstance(value, list) or any(
            isinstance(i, bool) or not isinstance(i, int) for i in value):
        raise ApiError(f"{field.name} is not a list of user IDs")
    return list(dict.fromkeys(value))


def check_profile_value(field: ProfileField, value: Any) -> str | None:
    """The text to store for this value (None clears), or the reason it is invalid.

    Person values are checked against the realm's users by the caller.
    """
    if value is None or value == "" or value == []:
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
            raise ApiError(f"'{text}' is not a valid choice for '{field.name}'.")
        return text
    if kind == DATE:
        text = _check_text(field, value, SHORT_VALUE_MAX_LENGTH)
        try:
            if not DATE_RE.match(text):
                raise ValueError(text)
            date.fromisoformat(text)
        except ValueError:
            raise ApiError(f"{field.name} is not a date") from None
        return text
    if kind == URL:
        text = _check_text(field, value, URL_MAX_LENGTH)
        if not _is_url(text):
            raise ApiError(f"{field.name} is not a URL")
        return text
    raise ApiError("Invalid field type.")


def _check_people(realm_id: int, user_ids: set[int]) -> None:
    found = {u.user_id: u for u in User.batch_get([(realm_id, i) for i in user_ids])}
    for user_id in sorted(user_ids):
        user = found.get(user_id)
        if user is None:
            raise ApiError(f"Invalid user ID: {user_id}")
        if not user.is_active:
            raise ApiError(f"User with ID {user_id} is deactivated")
        if user.is_bot:
            raise ApiError(f"User with ID {user_id} is a bot")


def _stored_value(entry: Any) -> str | None:
    if isinstance(entry, dict):
        return entry.get("value")
    return entry


def profile_entry(field: ProfileField, value: str) -> dict[str, str]:
    """What profile_data stores for a value: the API shape, HTML rendered now."""
    entry = {"value": value}
    if field.field_type in RENDERED_TYPES:
        entry["rendered_value"] = render_markdown(value)
    return entry


def check_profile_data(caller: Principal, data: list[dict[str, Any]]
                       ) -> list[tuple[ProfileField, str | None]]:
    """Each named field with the value to store (None clears), all checked."""
    if caller.is_bot:
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
            raise ApiError(f"Field id {item['id']} not found.")
        if not field.editable_by_user and not caller.is_admin:
            raise ApiError("You are not allowed to change this field. "
                           "Contact an administrator to update it.")
        value = check_profile_value(field, item.get("value"))
        if field.field_type == USER and value is not None:
            people.update(json.loads(value))
        checked.append((field, value))
    if people:
        _check_people(caller.realm_id, people)
    return checked


def do_update_profile_data(caller: Principal, data: list[dict[str, Any]]) -> None:
    """Sets or clears the caller's values; one event per value that changed.

    Each field is its own document path, conditioned on the value that was read, so
    concurrent changes to different fields both stick. (Every user is created with the
    profile_data map that these paths need.)
    """
    checked = check_profile_data(caller, data)
    for _ in range(MAX_ATTEMPTS):
        user = User.get_or_none(caller.realm_id, caller.user_id)
        if user is None or not user.is_active:
            raise ApiError("No such user")
        stored = user.profile_data.as_dict() if user.profile_data else {}
        actions, conditions, events = [], [], []
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
            person_field: dict[str, Any] = {"id": field.field_id, "value": value}
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
        try:
            with transaction() as tx:
                tx.update(user, actions=actions, condition=condition)
                for event in events:
                    add_event(tx, caller.realm_id, event, {"realm": True})
        except TransactWriteError as error:
            if is_condition_failure(error):
                continue   # changed meanwhile: read again
            raise
        return
    raise ConflictError("The profile changed concurrently; try again.")

