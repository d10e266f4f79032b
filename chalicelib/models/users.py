"""Users and bots, and the API-key records that authenticate them."""
from __future__ import annotations

from typing import Any

from pynamodb.attributes import (
    BooleanAttribute,
    MapAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
)
from pynamodb.expressions.condition import Condition
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, IncludeProjection

from chalicelib.core.feature_levels import level_reached
from chalicelib.models.attributes import IntegerAttribute, IntegerSetAttribute, list_of
from chalicelib.models.base import BaseModel, table_meta
from chalicelib.models.realms import UniqueName, email_key
from chalicelib.rules.avatars import (
    AVATAR_SOURCE_GRAVATAR,
    AVATAR_SOURCE_JDENTICON,
    AVATAR_SOURCE_UPLOADED,
    avatar_url_of,
)


class UsersByName(GlobalSecondaryIndex["User"]):
    """Resolves `@**Full Name**` mentions without reading the whole realm."""

    class Meta:
        index_name = "by_name"
        projection = AllProjection()

    name_key = UnicodeAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)


class BotsByOwner(GlobalSecondaryIndex["User"]):
    """A user's bots (a sparse index: only bots with an owner carry the key)."""

    class Meta:
        index_name = "by_bot_owner"
        projection = AllProjection()

    bot_owner_key = UnicodeAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)


class UsersByRole(GlobalSecondaryIndex["User"]):
    """A realm's human users of one role, e.g. its owners (bots carry no key)."""

    class Meta:
        index_name = "by_role"
        projection = IncludeProjection(["is_active"])

    role_key = UnicodeAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)


def role_key(realm_id: int, role: int) -> str:
    return f"{realm_id}#{role}"


def bot_owner_key(realm_id: int, owner_id: int) -> str:
    return f"{realm_id}#{owner_id}"


def name_key(realm_id: int, full_name: str) -> str:
    return f"{realm_id}#{full_name.strip().lower()}"


class User(BaseModel):
    Meta = table_meta("users")
    realm_id = IntegerAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)
    email = UnicodeAttribute()
    delivery_email = UnicodeAttribute()
    full_name = UnicodeAttribute()
    name_key = UnicodeAttribute()
    role = IntegerAttribute(default=400)
    # Humans only: role_key(realm, role); whatever changes a role changes it too.
    role_key = UnicodeAttribute(null=True)
    is_active = BooleanAttribute(default=True)
    is_bot = BooleanAttribute(default=False)
    bot_type = IntegerAttribute(null=True)
    bot_owner_id = IntegerAttribute(null=True)
    bot_owner_key = UnicodeAttribute(null=True)   # bots only: bot_owner_key(realm, owner)
    timezone = UnicodeAttribute(default="")
    date_joined = IntegerAttribute()
    # Created through the API or by an import: date_joined becomes the time of the first
    # login (level 475, actions/users/first_login.py); absent once it has.
    joined_at_first_login = BooleanAttribute(null=True)
    avatar_version = IntegerAttribute(default=1)
    # "J": a picture the server generates, made for people created while the
    # organization's default_avatar_source is "J" (level 456); unset: a Gravatar.
    avatar_source = UnicodeAttribute(null=True)
    # The digest that picture is drawn from (rules/avatars.generated_avatar_seed).
    avatar_seed = UnicodeAttribute(null=True)
    api_key_hash = UnicodeAttribute()
    # Further keys issued by POST /fetch_api_key; each has an ApiKey record like the first.
    extra_api_key_hashes = UnicodeSetAttribute(null=True)
    password_hash = UnicodeAttribute(null=True)
    # A bot's newest API key, sealed (rules/secrets.seal_secret): GET /bots/{id}/api_key.
    bot_api_key_sealed = UnicodeAttribute(null=True)
    # A special permission given only by the server's operator (`chalicelib.admin
    # set-permission`): with the owner role, changing other users' emails.
    can_change_user_emails = BooleanAttribute(default=False)
    # Created by an import (actions/workflows/import_realm.py) and not logged in since
    # (level 433: is_imported_stub); the first login clears it.
    is_imported_stub = BooleanAttribute(null=True)
    # The personal settings the user changed themself (PATCH /settings), which an
    # administrator's bulk change may leave alone (level 444, skip_if_already_edited).
    self_edited_settings = UnicodeSetAttribute(null=True)
    # The (non-system) user groups the user is a direct member of: written in the same
    # transaction as the group's members (actions/groups/membership.py), so deactivation
    # finds them without reading the realm's groups. System groups follow from the role.
    group_ids = IntegerSetAttribute(null=True)
    # Personal settings (§4.2) that differ from the defaults in rules/user_settings.py.
    settings: MapAttribute[str, Any] = MapAttribute(default=dict)
    # Words and phrases that highlight a message for this user, as the user wrote them.
    alert_words = list_of(UnicodeAttribute, null=True)
    # Custom profile field values: {"<field id>": "<value>"}.
    profile_data: MapAttribute[str, Any] = MapAttribute(default=dict)
    # Outgoing-webhook bots: where to post, and the fixed token the receiver checks.
    service_url = UnicodeAttribute(null=True)
    service_token = UnicodeAttribute(null=True)
    service_interface = IntegerAttribute(null=True)
    # Incoming-webhook bots: {"integration_id": its integration, "webhook_secret": the
    # secret that tool signs its requests with}, as POST /bots' config_data set them.
    bot_config: MapAttribute[str, Any] = MapAttribute(null=True)
    # When the bot's owner was last told of a message the bot could not deliver (at most
    # one such notice every few minutes; actions/messages/incoming_webhooks.py).
    webhook_notice_at = IntegerAttribute(null=True)
    by_name = UsersByName()
    by_bot_owner = BotsByOwner()
    by_role = UsersByRole()

    def stored_settings(self) -> dict[str, Any]:
        """The settings this user changed from the defaults, as a plain dict."""
        return self.settings.as_dict() if self.settings else {}


class ApiKey(BaseModel):
    """The authentication record, keyed by the API key's hash.

    Carries what authorization needs so that authenticating is one GetItem; every
    action that changes these fields on the user updates this item in the same
    transaction.
    """

    Meta = table_meta("api_keys")
    key_hash = UnicodeAttribute(hash_key=True)
    realm_id = IntegerAttribute()
    user_id = IntegerAttribute()
    email = UnicodeAttribute()   # the real address: HTTP Basic authenticates with it
    # The address the API shows for the user when it is not the real one (a hidden
    # address's stand-in, rules/email_visibility.py); absent when they are the same.
    api_email = UnicodeAttribute(null=True)
    role = IntegerAttribute()
    is_bot = BooleanAttribute(default=False)
    # An incoming-webhook bot's key opens only the integrations' URLs and POST /messages
    # (absent on keys older than this field: `chalicelib.admin reindex` writes it).
    bot_type = IntegerAttribute(null=True)
    is_active = BooleanAttribute(default=True)
    realm_active = BooleanAttribute(default=True)
    # When the key was issued, in UNIX nanoseconds (absent on keys older than this field): the oldest
    # extra key is the one POST /fetch_api_key retires when a user holds too many.
    created = IntegerAttribute(null=True)

    @property
    def shown_email(self) -> str:
        """The user's address as the API shows it (Principal.email)."""
        return self.api_email or self.email


def api_key_record(key_hash: str, user: User, *, created: int | None = None,
                   realm_active: bool = True) -> ApiKey:
    """The authentication record of one of the user's keys, from the user item."""
    return ApiKey(key_hash, realm_id=user.realm_id, user_id=user.user_id,
                  email=user.delivery_email, api_email=stand_in_of(user), role=user.role,
                  is_bot=user.is_bot, is_active=user.is_active, realm_active=realm_active,
                  bot_type=user.bot_type, created=created)


def key_fields_current(user: User) -> Condition:
    """A condition on the user item: what its API-key records copy from it (addresses,
    role) is as read. A login that issues a key conditions on it, so its key cannot
    miss a change made meanwhile."""
    fields: Condition = (User.email == user.email) & (
        User.delivery_email == user.delivery_email) & (User.role == user.role)
    return fields


def key_set_current(user: User) -> Condition:
    """A condition on the user item: its keys are the ones read. A change of what the
    keys copy conditions on it (and updates each key), so a key issued meanwhile cannot
    keep the old value."""
    held = set(user.extra_api_key_hashes or ())
    keys: Condition = (User.api_key_hash == user.api_key_hash) & (
        (User.extra_api_key_hashes == held) if held
        else User.extra_api_key_hashes.does_not_exist())
    return keys


def stand_in_of(user: User) -> str | None:
    """The user's API address when it is not their real one (ApiKey.api_email)."""
    return None if user.email == user.delivery_email else user.email


def get_user_by_email(realm_id: int, email: str) -> User | None:
    if len(email.strip().encode()) > MAX_EMAIL_BYTES:
        return None   # no account has one; DynamoDB would refuse the key (1 KB)
    scope, key = email_key(realm_id, email)
    claim = UniqueName.get_or_none(scope, key)
    return None if claim is None else User.get_or_none(realm_id, claim.target_id)


# RFC 5321's limit, in bytes; it also keeps the email claim's key under DynamoDB's 1 KB.
MAX_EMAIL_BYTES = 254


# The values of User.bot_type, numbered as the reference numbers them.
BOT_TYPE_GENERIC = 1
BOT_TYPE_INCOMING_WEBHOOK = 2
BOT_TYPE_OUTGOING_WEBHOOK = 3
BOT_TYPES = {BOT_TYPE_GENERIC, BOT_TYPE_INCOMING_WEBHOOK, BOT_TYPE_OUTGOING_WEBHOOK}


JDENTICON_LEVEL = 466   # avatar_source "J"


def user_avatar_url(user: User, medium: bool = False) -> str:
    """The user's picture as everyone sees it (rules/avatars.py)."""
    return avatar_url_of(user.realm_id, user.email, user.avatar_source, user.avatar_seed,
                         user.avatar_version, medium)


def user_avatar_source(user: User) -> str:
    """The avatar_source clients are told: "J" from level 466, which added it; below,
    a picture the server hosts, as the reference's uploaded ones ("U")."""
    if user.avatar_source != AVATAR_SOURCE_JDENTICON:
        return AVATAR_SOURCE_GRAVATAR
    return AVATAR_SOURCE_JDENTICON if level_reached(JDENTICON_LEVEL) else AVATAR_SOURCE_UPLOADED
