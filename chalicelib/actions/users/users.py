"""Users and bots: creation, lookup with permission, and their API shape."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, cast

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib import config
from chalicelib.actions.users.reads.access import (
    ProfileDataValue,
    UserAccess,
    UserDict,
    UserFields,
    user_access_audience,
    viewer_access,
)
from chalicelib.actions.users.reads.email_access import (
    SETTING as EMAIL_SETTING,
)
from chalicelib.actions.users.reads.email_access import (
    api_email,
    shown_delivery_email,
    visibility_of,
)
from chalicelib.actions.users.reads.newest_received import newest_received_id
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, UNKNOWN_USER, ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import (
    ROLE_ADMINISTRATOR,
    ROLE_GUEST,
    ROLE_MEMBER,
    ROLE_NAMES,
    ROLE_OWNER,
    ROLES,
    Principal,
)
from chalicelib.delivery.outbox import add_event
from chalicelib.models.base import (
    BaseModel,
    is_condition_failure,
    transaction,
)
from chalicelib.models.ids import allocate_id
from chalicelib.models.realms import Realm, UniqueName, email_key, realm_setting, realm_uuid
from chalicelib.models.user_rows import UserRow, realm_user_rows
from chalicelib.models.users import (
    MAX_EMAIL_BYTES,
    ApiKey,
    User,
    api_key_record,
    bot_owner_key,
    get_user_by_email,
    name_key,
    role_key,
)
from chalicelib.rules.avatars import (
    AVATAR_SOURCE_JDENTICON,
    avatar_url_of,
    generated_avatar_seed,
)
from chalicelib.rules.passwords import hash_password
from chalicelib.rules.secrets import hash_api_key, new_api_key, seal_secret
from chalicelib.rules.timeutil import iso_from_seconds, now_seconds
from chalicelib.rules.user_settings import DEFAULTS as SETTING_DEFAULTS

EMAIL_RE = re.compile(r"^[^@\s,]+@[^@\s,]+\.[^@\s,]+$|^[^@\s,]+@localhost$")


class RealmUserAddEvent(TypedDict):
    type: Literal["realm_user"]
    op: Literal["add"]
    person: UserDict


class OwnUserResult(UserFields):
    """The record of GET /users/me (§2.4)."""

    delivery_email: str
    max_message_id: int


@dataclass(frozen=True)
class NewUser:
    email: str
    full_name: str
    role: int = ROLE_MEMBER
    is_bot: bool = False
    bot_type: int | None = None
    bot_owner_id: int | None = None
    service_url: str | None = None
    service_token: str | None = None
    service_interface: int | None = None
    bot_config: dict[str, str] | None = None
    password_hash: str | None = None
    api_key: str | None = None  # given only by tests and the demo seed
    joined_at_first_login: bool = False   # date_joined set again at the first login


def check_email(email: str) -> str:
    email = email.strip()
    if len(email.encode()) > MAX_EMAIL_BYTES:
        raise ApiError(f"Invalid email address: longer than {MAX_EMAIL_BYTES} bytes.")
    if not EMAIL_RE.match(email):
        raise ApiError(f"Invalid email address '{email}'.")
    return email


def check_full_name(full_name: str) -> str:
    full_name = full_name.strip()
    if not full_name:
        raise ApiError("Name cannot be empty.")
    if len(full_name) > config.MAX_FULL_NAME_LENGTH:
        raise ApiError(f"Name too long (at most {config.MAX_FULL_NAME_LENGTH} characters).")
    if any(ch in full_name for ch in "*`\\>\"@") or any(ord(ch) < 32 for ch in full_name):
        raise ApiError("The name has characters it cannot contain.")
    return full_name


@dataclass(frozen=True)
class NewUserDefaults:
    """What a new user takes from the organization (one read of it)."""

    settings: dict[str, Any]    # PATCH /realm/user_settings_defaults
    subdomain: str | None       # for a stand-in address; None for a realm being created
    # The organization's UUID when its new users get a generated picture (its
    # default_avatar_source "J"); None: a Gravatar.
    generated_avatars_of: str | None = None


def _new_user_defaults(realm_id: int) -> NewUserDefaults:
    realm = Realm.get_or_none(realm_id)
    if realm is None:
        return NewUserDefaults({}, None)
    stored = realm.user_settings_defaults.as_dict() if realm.user_settings_defaults else {}
    generated = realm_setting(realm, "default_avatar_source") == AVATAR_SOURCE_JDENTICON
    return NewUserDefaults({k: v for k, v in stored.items() if k in SETTING_DEFAULTS},
                           realm.subdomain, realm_uuid(realm) if generated else None)


def user_items(realm_id: int, user_id: int, new: NewUser,
               defaults: NewUserDefaults | None = None,
               ) -> tuple[list[tuple[BaseModel, Any]], str]:
    """The items that make a user (user, API key, email claim) and the new API key;
    `defaults`: the organization's, when it is being created with the user."""
    if new.role not in ROLES:
        raise ApiError("Invalid role")
    email = check_email(new.email)
    full_name = check_full_name(new.full_name)
    api_key = new.api_key or new_api_key()
    key_hash = hash_api_key(api_key)
    # The organization's defaults for new users (none yet for a new realm); a bot's
    # address is always visible to everyone.
    if defaults is None:
        defaults = _new_user_defaults(realm_id)
    settings = {k: v for k, v in defaults.settings.items()
                if not (new.is_bot and k == EMAIL_SETTING)}
    visibility = int(settings.get(EMAIL_SETTING, SETTING_DEFAULTS[EMAIL_SETTING]))
    shown = email if defaults.subdomain is None else api_email(
        user_id, email, visibility, defaults.subdomain)
    avatar_source, avatar_seed = _avatar_fields(defaults, user_id)
    user = User(realm_id, user_id, email=shown, delivery_email=email, full_name=full_name,
                name_key=name_key(realm_id, full_name), role=new.role, is_bot=new.is_bot,
                role_key=None if new.is_bot else role_key(realm_id, new.role),
                bot_type=new.bot_type, bot_owner_id=new.bot_owner_id, date_joined=now_seconds(),
                bot_owner_key=(bot_owner_key(realm_id, new.bot_owner_id)
                               if new.is_bot and new.bot_owner_id is not None else None),
                api_key_hash=key_hash, password_hash=new.password_hash,
                service_url=new.service_url, service_token=new.service_token,
                service_interface=new.service_interface, bot_config=new.bot_config,
                settings=settings, joined_at_first_login=new.joined_at_first_login or None,
                avatar_source=avatar_source, avatar_seed=avatar_seed,
                bot_api_key_sealed=seal_secret(
                    api_key, config.bot_key_sealing_key()) if new.is_bot else None)
    record = api_key_record(key_hash, user)
    scope, key = email_key(realm_id, email)
    return [
        (user, User.user_id.does_not_exist()),
        (record, ApiKey.key_hash.does_not_exist()),
        (UniqueName(scope, key, target_id=user_id), UniqueName.name.does_not_exist()),
    ], api_key


def _avatar_fields(defaults: NewUserDefaults, user_id: int) -> tuple[str | None, str | None]:
    """avatar_source and avatar_seed: a generated picture, or none (a Gravatar)."""
    if defaults.generated_avatars_of is None:
        return None, None
    return (AVATAR_SOURCE_JDENTICON,
            generated_avatar_seed(defaults.generated_avatars_of, user_id))


def do_create_user(realm_id: int, new: NewUser,
                   also: Callable[[TransactWrite, User], None] | None = None
                   ) -> tuple[User, str]:
    """Creates a user (or bot) and tells the realm; returns the user and its API key.

    `also` adds writes that must commit with the user (e.g. using up an invitation, which
    records the new user's id); a failed condition among them is reported like a taken
    email, so callers check.
    """
    if get_user_by_email(realm_id, new.email) is not None:
        raise ApiError(f"The email '{new.email.strip()}' belongs to another account")
    user_id = allocate_id(realm_id, "user")
    items, api_key = user_items(realm_id, user_id, new)
    user = items[0][0]
    assert isinstance(user, User)  # nosec B101 # type narrowing (set above)
    try:
        with transaction() as tx:
            for item, condition in items:
                tx.save(item, condition=condition)
            if also is not None:
                also(tx, user)
            # Guests whom the realm limits hear of a new user only if they can access
            # them (the fan-out decides, and may send them an "Unknown user" instead).
            event: RealmUserAddEvent = {"type": "realm_user", "op": "add",
                                        "person": user_api_dict(user, viewer=None)}
            # The fan-out shows the real address only to those who may see it.
            add_event(tx, realm_id, event, user_access_audience(user_id),
                      {"email_visibility": visibility_of(user)})
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError(f"The email '{new.email.strip()}' belongs to another account") from None
        raise
    return user, api_key


def get_own_user(caller: Principal) -> User:
    user = User.get_or_none(caller.realm_id, caller.user_id)
    if user is None:
        raise ApiError(UNKNOWN_USER)
    return user


def user_api_dict(user: User | UserRow, *, viewer: Principal | None,
                  imported_stub: bool | None = None) -> UserDict:
    """A user as GET /users shows it to `viewer`: the real address only if they may see
    it. None: the realm_user add event, whose real address the fan-out shows or hides
    per queue (email_access.email_form). `imported_stub`: whether is_imported_stub is
    sent (level 433), when the caller has asked already (a list asks once)."""
    row = UserRow.of(user)
    role = row.role
    data: UserDict = {
        "user_id": row.user_id,
        "email": row.email,
        "delivery_email": row.delivery_email if viewer is None
        else shown_delivery_email(viewer, row),
        "full_name": row.full_name,
        "date_joined": iso_from_seconds(row.date_joined),
        "is_active": row.is_active,
        "is_owner": role == ROLE_OWNER,
        "is_admin": role <= ROLE_ADMINISTRATOR,
        "is_guest": role == ROLE_GUEST,
        "is_bot": row.is_bot,
        "role": role,
        "timezone": row.timezone or "",
        "avatar_url": avatar_url_of(row.realm_id, row.email, row.avatar_source,
                                    row.avatar_seed, row.avatar_version),
        "avatar_version": row.avatar_version,
    }
    if row.is_bot:
        data["bot_type"] = row.bot_type
        data["bot_owner_id"] = row.bot_owner_id
    else:
        data["profile_data"] = profile_values(row.profile_data)
    if level_reached(433) if imported_stub is None else imported_stub:
        data["is_imported_stub"] = bool(row.is_imported_stub)
    return data


def profile_data_dict(user: User) -> dict[str, ProfileDataValue]:
    """{field id: {"value", "rendered_value"?}}, as stored when the value was set."""
    return profile_values(user.profile_data.as_dict() if user.profile_data else {})


def profile_values(stored: dict[str, Any]) -> dict[str, ProfileDataValue]:
    """Stored profile data ({field id: value}) as the API shows it."""
    return {key: ({"value": entry} if isinstance(entry, str)
                  else cast(ProfileDataValue, dict(entry)))
            for key, entry in stored.items() if entry is not None}


def own_user_api_dict(user: User, max_message_id: int) -> OwnUserResult:
    """The record of GET /users/me (§2.4): exactly the reference's fields."""
    shown = user_api_dict(user, viewer=None)   # their own: the real address
    data: OwnUserResult = {
        "user_id": shown["user_id"], "email": shown["email"],
        "delivery_email": user.delivery_email, "full_name": shown["full_name"],
        "avatar_url": shown["avatar_url"], "avatar_version": shown["avatar_version"],
        "role": shown["role"], "is_admin": shown["is_admin"], "is_owner": shown["is_owner"],
        "is_guest": shown["is_guest"], "is_bot": shown["is_bot"],
        "is_active": shown["is_active"], "timezone": shown["timezone"],
        "date_joined": shown["date_joined"], "max_message_id": max_message_id}
    # A bot's type and owner are not in the reference's GET /users/me (a bot reads them
    # from GET /users/{id}); users see their profile data.
    if not user.is_bot:
        data["profile_data"] = profile_data_dict(user)
    if "is_imported_stub" in shown:
        data["is_imported_stub"] = shown["is_imported_stub"]
    return data


def role_from_name(value: str) -> int:
    if value.isdigit() and int(value) in ROLES:
        return int(value)
    if value not in ROLE_NAMES:
        raise ApiError(f"Invalid role '{value}': use one of {', '.join(ROLE_NAMES)}.")
    return ROLE_NAMES[value]


def get_own_user_record(caller: Principal) -> OwnUserResult:
    user = User.get(caller.realm_id, caller.user_id)
    return own_user_api_dict(user, newest_received_id(caller))


def realm_user_dicts(users: Sequence[User | UserRow], access: UserAccess, viewer: Principal,
                     omit_inaccessible: bool = False) -> list[UserDict]:
    """The users as the viewer may see them: inaccessible ones as "Unknown user"
    placeholders, or left out (clients with the user_list_incomplete capability)."""
    shown: list[UserDict] = []
    stub = level_reached(433)
    for user in users:
        if access.can_access(user):
            shown.append(user_api_dict(user, viewer=viewer, imported_stub=stub))
        elif not omit_inaccessible:
            shown.append(access.placeholder(user.user_id))
    return shown


def get_members(caller: Principal) -> list[UserDict]:
    """GET /users: the users the caller can access; below level 437 the others came as
    "Unknown user" placeholders (meant only for registration without
    user_list_incomplete)."""
    access = viewer_access(caller)
    return realm_user_dicts(realm_user_rows(caller.realm_id), access, caller,
                            omit_inaccessible=level_reached(437))


def check_create_user(caller: Principal, *, email: str, full_name: str,
                      password: str) -> User:
    """POST /users: organization administrators create accounts."""
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)
    new = NewUser(email=email, full_name=full_name,
                  password_hash=hash_password(password) if password else None,
                  joined_at_first_login=True)
    user, _ = do_create_user(caller.realm_id, new)
    return user
