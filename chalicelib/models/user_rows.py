"""A user as the API's shapes read it (`UserRow`): the few fields a user object, a
status or an access decision needs, as plain values.

Registration lists every user of the organization. Built as PynamoDB models, 10,000
users were half of its CPU: each item became a model through every attribute's
descriptor (thirty-odd, most of them secrets, keys and settings the answer never
shows), and each field was read back through its descriptor again. `realm_user_rows`
reads only the fields the shapes need (a ProjectionExpression) and makes each raw item
a row directly; `UserRow.of` makes the same row of a model already read, so one
builder serves both (actions/users/users.py, `user_api_dict`).
`tests/functional/test_user_rows.py` holds both ways to the same row.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chalicelib.models.raw_items import RawItem, RawValues, query_rows
from chalicelib.models.users import User

# The settings a row keeps (the rest stay on the model): who sees the real address,
# and whether the user shows as present (a status's `away`).
ROW_SETTINGS = ("email_address_visibility", "presence_enabled")

_SCALARS = ("realm_id", "user_id", "email", "delivery_email", "full_name", "role",
            "is_active", "is_bot", "bot_type", "bot_owner_id", "timezone", "date_joined",
            "avatar_version", "avatar_source", "avatar_seed", "is_imported_stub")


@dataclass(slots=True)
class UserRow:
    """What the API's user shapes read of a user; defaults as the model's."""

    realm_id: int
    user_id: int
    email: str
    delivery_email: str
    full_name: str
    date_joined: int
    role: int = 400
    is_active: bool = True
    is_bot: bool = False
    bot_type: int | None = None
    bot_owner_id: int | None = None
    timezone: str = ""
    avatar_version: int = 1
    avatar_source: str | None = None
    avatar_seed: str | None = None
    is_imported_stub: bool | None = None
    settings: dict[str, Any] = field(default_factory=dict)       # ROW_SETTINGS only
    profile_data: dict[str, Any] = field(default_factory=dict)   # {field id: value}

    @classmethod
    def of(cls, user: User | UserRow) -> UserRow:
        """The row of a user model (a row as it is)."""
        if isinstance(user, UserRow):
            return user
        stored = user.stored_settings()
        return cls(**{name: getattr(user, name) for name in _SCALARS},
                   settings={k: stored[k] for k in ROW_SETTINGS if k in stored},
                   profile_data=user.profile_data.as_dict() if user.profile_data else {})

    def stored_settings(self) -> dict[str, Any]:
        """As User.stored_settings, for the settings a row keeps."""
        return self.settings


def projection() -> list[str]:
    """The attributes of a row's fields (a ProjectionExpression). The settings map is
    read whole (it is small): moto answers a Query projecting paths inside a map ten
    times slower, 16 s for 10,000 users on the local stack."""
    return [*_SCALARS, "profile_data", "settings"]


def row_from_item(item: RawItem) -> UserRow:
    """A row from a raw DynamoDB item (of the projection above, or whole)."""
    raw = RawValues(item)
    stored = item.get("settings", {}).get("M") or {}
    settings = {name: stored[name] for name in ROW_SETTINGS if name in stored}
    profile = item.get("profile_data", {}).get("M")
    role, active, bot = raw.number("role"), raw.flag("is_active"), raw.flag("is_bot")
    zone, version = raw.text("timezone"), raw.number("avatar_version")
    return UserRow(
        realm_id=raw.number("realm_id") or 0, user_id=raw.number("user_id") or 0,
        email=raw.text("email") or "", delivery_email=raw.text("delivery_email") or "",
        full_name=raw.text("full_name") or "", date_joined=raw.number("date_joined") or 0,
        role=400 if role is None else role, is_active=True if active is None else active,
        is_bot=False if bot is None else bot, bot_type=raw.number("bot_type"),
        bot_owner_id=raw.number("bot_owner_id"), timezone="" if zone is None else zone,
        avatar_version=1 if version is None else version,
        avatar_source=raw.text("avatar_source"), avatar_seed=raw.text("avatar_seed"),
        is_imported_stub=raw.flag("is_imported_stub"),
        settings=User.settings.deserialize(settings) if settings else {},
        profile_data=User.profile_data.deserialize(profile) if profile else {})


def realm_user_rows(realm_id: int) -> list[UserRow]:
    """Every user and bot of the realm as rows: one Query, paged by DynamoDB, of only
    the rows' fields, each raw item made a row without a model."""
    return query_rows(User, realm_id, row_from_item, projection())
