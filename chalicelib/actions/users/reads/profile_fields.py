"""The organization's custom profile fields as the API shows them (GET
/realm/profile_fields, POST /register); the writes are in actions/users/profile_fields.py.
"""
from __future__ import annotations

import json
from typing import Any, Literal, NotRequired, TypedDict

from chalicelib.core.feature_levels import at_advertised_level
from chalicelib.models.profile_fields import ProfileField

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


DEFAULT_EXTERNAL_ACCOUNTS = {
    "github": {"name": "GitHub", "hint": "Enter your GitHub username",
               "url_pattern": "https://github.com/%(username)s"},
    "twitter": {"name": "Twitter", "hint": "Enter your Twitter username",
                "url_pattern": "https://twitter.com/%(username)s"},
}


class ProfileFieldDict(TypedDict):
    id: int
    name: str
    type: int
    hint: str
    order: int
    field_data: str   # JSON-encoded, or "" for types without data
    required: bool
    editable_by_user: bool
    display_in_profile_summary: NotRequired[Literal[True]]
    use_for_user_matching: NotRequired[bool]   # level 455


class ProfileFieldType(TypedDict):
    id: int
    name: str


def realm_profile_fields(realm_id: int) -> list[ProfileField]:
    return sorted(ProfileField.query(realm_id), key=lambda f: (f.order, f.field_id))


def profile_field_dict(field: ProfileField) -> ProfileFieldDict:
    """The reference's CustomProfileField (display_in_profile_summary only when true)."""
    data: ProfileFieldDict = {
        "id": field.field_id, "name": field.name, "type": field.field_type,
        "hint": field.hint or "", "order": field.order,
        "field_data": json.dumps(field.field_data) if field.field_data else "",
        "required": bool(field.required), "editable_by_user": bool(field.editable_by_user),
    }
    if field.display_in_profile_summary:
        data["display_in_profile_summary"] = True
    data["use_for_user_matching"] = bool(field.use_for_user_matching)
    return at_advertised_level("profile_field", data)


def custom_profile_field_types() -> dict[str, ProfileFieldType]:
    return {key: {"id": type_id, "name": name}
            for type_id, (key, name) in FIELD_TYPES.items()}


def profile_fields_state(realm_id: int) -> dict[str, Any]:
    """The custom_profile_fields part of POST /register."""
    return {"custom_profile_fields": [profile_field_dict(f)
                                      for f in realm_profile_fields(realm_id)],
            "custom_profile_field_types": custom_profile_field_types()}
