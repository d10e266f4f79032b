"""Custom profile fields: the realm's definitions (users' values: actions/users/profile_data.py)."""
from __future__ import annotations

from typing import Any, Literal, TypedDict
from urllib.parse import urlsplit

from pynamodb.exceptions import TransactWriteError, UpdateError

from chalicelib.actions.users.reads.profile_fields import (
    DEFAULT_EXTERNAL_ACCOUNTS,
    EXTERNAL_ACCOUNT,
    FIELD_TYPES,
    LONG_TEXT,
    SELECT,
    SHORT_TEXT,
    USER,
    ProfileFieldDict,
    profile_field_dict,
    realm_profile_fields,
)
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.models.base import (
    is_condition_failure,
    is_write_condition_failure,
    transaction,
)
from chalicelib.models.ids import allocate_id
from chalicelib.models.profile_fields import ProfileField
from chalicelib.models.realms import UniqueName, claim_name
from chalicelib.models.users import User

# As the reference's examples show, both text types carry a rendered_value.
RENDERED_TYPES = frozenset({SHORT_TEXT, LONG_TEXT})
# The reference's summary cannot show people, nor long text (its Paragraph fields) below
# level 476.
NOT_IN_SUMMARY = frozenset({LONG_TEXT, USER})
PARAGRAPHS_IN_SUMMARY_LEVEL = 476
MAX_SUMMARY_FIELDS = 2
NAME_MAX_LENGTH = 40
HINT_MAX_LENGTH = 80
USERNAME_PLACEHOLDER = "%(username)s"
USER_MATCHING_LEVEL = 455


class CustomProfileFieldsEvent(TypedDict):
    """The realm's whole list of fields, after a change."""

    type: Literal["custom_profile_fields"]
    fields: list[ProfileFieldDict]


def profile_field_name_key(realm_id: int, name: str) -> tuple[str, str]:
    """The UniqueName claim that keeps field names unique per realm, ignoring case."""
    return f"realm:{realm_id}", f"profile_field:{name.strip().lower()}"


def is_url(value: str) -> bool:
    try:
        parts = urlsplit(value)
    except ValueError:   # e.g. an unclosed IPv6 literal: "http://[::1"
        return False
    return (parts.scheme in ("http", "https") and bool(parts.netloc)
            and not any(ch.isspace() for ch in value))


def _require_admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)


def _fields_event(fields: list[ProfileField]) -> CustomProfileFieldsEvent:
    ordered = sorted(fields, key=lambda f: (f.order, f.field_id))
    return {"type": "custom_profile_fields", "fields": [profile_field_dict(f) for f in ordered]}


# Definitions ---------------------------------------------------------------------------

def _check_select_data(field_data: dict[str, Any]) -> dict[str, Any]:
    if not field_data:
        raise ApiError("A list field needs one choice or more.")
    texts = set()
    for key, choice in field_data.items():
        if not key.strip():
            raise ApiError("A choice's key must not be empty.")
        if not isinstance(choice, dict) or set(choice) != {"text", "order"}:
            raise ApiError(f"field_data[\"{key}\"] must have exactly 'text' and 'order'")
        for part in ("text", "order"):
            if not isinstance(choice[part], str) or not choice[part].strip():
                raise ApiError(f'field_data["{key}"]["{part}"] must not be empty.')
        texts.add(choice["text"].strip().lower())
    if len(texts) != len(field_data):
        raise ApiError("Each choice of the field must be different.")
    return field_data


def _check_external_account_data(field_data: dict[str, Any]) -> dict[str, Any]:
    subtype = field_data.get("subtype")
    if not isinstance(subtype, str):   # JSON may carry a list or object here
        raise ApiError("Unknown external account type")
    if subtype == "custom":
        pattern = field_data.get("url_pattern")
        if not isinstance(pattern, str) or not pattern:
            raise ApiError("A custom external account needs a URL pattern")
        if pattern.count(USERNAME_PLACEHOLDER) != 1:
            raise ApiError("The URL pattern has to include '%(username)s'.")
        if not is_url(pattern.replace(USERNAME_PLACEHOLDER, "username")):
            raise ApiError("URL pattern must be a URL")
        return {"subtype": "custom", "url_pattern": pattern}
    if subtype not in DEFAULT_EXTERNAL_ACCOUNTS:
        raise ApiError("Unknown external account type")
    if "url_pattern" in field_data:
        raise ApiError("URL pattern is only for custom external accounts")
    return {"subtype": subtype}


def check_field_definition(field_type: int, name: str, hint: str,
                           field_data: dict[str, Any] | None
                           ) -> tuple[str, str, dict[str, Any] | None]:
    """The cleaned name, hint and field_data of a new field, or the reason it is invalid."""
    if field_type not in FIELD_TYPES:
        raise ApiError("Unknown custom profile field type.")
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
        raise ApiError("A field needs a name.")
    if len(name) > NAME_MAX_LENGTH:
        raise ApiError(f"name is over the limit of {NAME_MAX_LENGTH} characters")
    if len(hint) > HINT_MAX_LENGTH:
        raise ApiError(f"hint is over the limit of {HINT_MAX_LENGTH} characters")
    return name, hint, data


def do_create_profile_field(caller: Principal, *, name: str, hint: str, field_type: int,
                            field_data: dict[str, Any] | None,
                            display_in_profile_summary: bool, required: bool,
                            editable_by_user: bool, use_for_user_matching: bool = False
                            ) -> int:
    """Adds a field to the caller's realm and sends the realm the new list; returns its id."""
    _require_admin(caller)
    name, hint, data = check_field_definition(field_type, name, hint, field_data)
    existing = realm_profile_fields(caller.realm_id)
    if any(f.name.lower() == name.lower() for f in existing):
        raise ApiError("Another field already has that name.")
    if display_in_profile_summary:
        if field_type in NOT_IN_SUMMARY and not (
                field_type == LONG_TEXT and level_reached(PARAGRAPHS_IN_SUMMARY_LEVEL)):
            raise ApiError("Fields of this type cannot be shown in the profile summary.")
        if sum(1 for f in existing if f.display_in_profile_summary) >= MAX_SUMMARY_FIELDS:
            raise ApiError(f"Only {MAX_SUMMARY_FIELDS} custom profile fields can be "
                           "displayed in the profile summary.")
    field_id = allocate_id(caller.realm_id, "profile_field")
    field = ProfileField(caller.realm_id, field_id, name=name, hint=hint,
                         field_type=field_type, field_data=data, order=field_id,
                         display_in_profile_summary=display_in_profile_summary,
                         required=required, editable_by_user=editable_by_user,
                         # a parameter of level 455, taken only from that level
                         use_for_user_matching=use_for_user_matching and level_reached(
                             USER_MATCHING_LEVEL))
    scope, key = profile_field_name_key(caller.realm_id, name)
    try:
        with transaction() as tx:
            tx.save(field, condition=ProfileField.field_id.does_not_exist())
            claim_name(tx, (scope, key), field_id)
            add_event(tx, caller.realm_id, _fields_event([*existing, field]), to_realm())
    except TransactWriteError as error:
        if is_condition_failure(error):   # another admin took the name meanwhile
            raise ApiError("Another field already has that name.") from None
        raise
    return field_id


def access_profile_field(realm_id: int, field_id: int) -> ProfileField:
    field = ProfileField.get_or_none(realm_id, field_id)
    if field is None:
        raise ApiError(f"No custom profile field has ID {field_id}.")
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
            add_event(tx, caller.realm_id, _fields_event(remaining), to_realm())
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError(f"No custom profile field has ID {field_id}.") from None
        raise
    _remove_values(caller.realm_id, field_id)


def _remove_values(realm_id: int, field_id: int) -> None:
    """Drops a deleted field's values; ids are never reused, so a missed one only lingers."""
    path = User.profile_data[str(field_id)]
    for user in User.query(realm_id, filter_condition=path.exists()):
        try:
            user.update(actions=[path.remove()], condition=path.exists())
        except UpdateError as error:
            if not is_write_condition_failure(error):
                raise
