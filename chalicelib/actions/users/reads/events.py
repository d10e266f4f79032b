"""The shapes of the realm_user update event: one person form per kind of change (§6)."""
from __future__ import annotations

from typing import Literal, NotRequired, TypedDict


class PersonFullName(TypedDict):
    user_id: int
    full_name: str


class PersonTimezone(TypedDict):
    user_id: int
    email: str   # deprecated, as in the reference
    timezone: str


class PersonNewEmail(TypedDict):
    user_id: int
    new_email: str


class PersonDeliveryEmail(TypedDict):
    user_id: int
    delivery_email: str | None   # null when the viewer lost access to it


class PersonAvatar(TypedDict):
    """A new picture: here when the API address it is made from changes."""

    user_id: int
    avatar_source: str   # "G": Gravatar (no uploaded pictures here)
    avatar_url: str
    avatar_url_medium: str
    avatar_version: int


class PersonActive(TypedDict):
    user_id: int
    is_active: bool


class PersonRole(TypedDict):
    user_id: int
    role: int


class PersonDateJoined(TypedDict):
    """Level 475: an account an administrator created, at its first login."""

    user_id: int
    date_joined: str


class CustomProfileFieldValue(TypedDict):
    id: int
    value: str | None
    rendered_value: NotRequired[str]   # Markdown-capable field types only


class PersonCustomProfileField(TypedDict):
    user_id: int
    custom_profile_field: CustomProfileFieldValue


class PersonImportedStub(TypedDict):
    """An imported user's first login (level 433)."""

    user_id: int
    is_imported_stub: bool


Person = (PersonFullName | PersonTimezone | PersonNewEmail | PersonDeliveryEmail
          | PersonAvatar | PersonActive | PersonCustomProfileField | PersonRole
          | PersonImportedStub | PersonDateJoined)


class RealmUserUpdateEvent(TypedDict):
    type: Literal["realm_user"]
    op: Literal["update"]
    person: Person
