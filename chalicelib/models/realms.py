"""Organizations, unique names within them, and their id counters."""
from __future__ import annotations

import re
import uuid
from typing import Any

from pynamodb.attributes import BooleanAttribute, MapAttribute, UnicodeAttribute
from pynamodb.exceptions import UpdateError
from pynamodb.transactions import TransactWrite

from chalicelib.core.errors import ApiError
from chalicelib.models.attributes import IntegerAttribute, IntegerSetAttribute
from chalicelib.models.base import BaseModel, is_write_condition_failure, table_meta
from chalicelib.rules.group_settings import GroupSettingValue, stored_group_setting
from chalicelib.rules.realm_settings import DEFAULTS, GROUP_SETTING_DEFAULTS


class Realm(BaseModel):
    Meta = table_meta("realms")
    realm_id = IntegerAttribute(hash_key=True)
    name = UnicodeAttribute()
    subdomain = UnicodeAttribute()
    description = UnicodeAttribute(default="")
    date_created = IntegerAttribute()
    deactivated = BooleanAttribute(default=False)
    # Organization settings (§2.8) that differ from the defaults in rules/realm_settings.py.
    settings: MapAttribute[str, Any] = MapAttribute(default=dict)
    # The default channels (new users join them), changed with the channels themselves.
    default_stream_ids = IntegerSetAttribute(null=True)
    # Bumped by every subgroup addition, which is conditioned on it: additions are
    # serialized per realm, so two concurrent ones cannot close a cycle of subgroups.
    group_graph_version = IntegerAttribute(null=True)
    # The personal settings new users start with, where they differ from the defaults
    # (PATCH /realm/user_settings_defaults).
    user_settings_defaults: MapAttribute[str, Any] = MapAttribute(null=True)
    # This organization's rate limits where they differ from the deployment's RATE_LIMITS
    # (`name=limit/seconds,...`, rules/rate_limits.py); set with the admin CLI.
    rate_limits = UnicodeAttribute(null=True)
    # How many people this organization may invite by email a UTC day, where it differs
    # from the deployment's INVITES_DAILY_LIMIT (the reference's max_invites); set with
    # the admin CLI.
    max_invites = IntegerAttribute(null=True)
    # A new random token in every transaction that changes the linkifiers: a process may
    # render with the rules it compiled while this is unchanged (random, not a counter, so
    # that no other realm's state, even under a reused id, can match it;
    # actions/realm/reads/linkifiers.py).
    linkifiers_changed = UnicodeAttribute(null=True)
    # The organization's random UUID (POST /register realm_uuid from level 466): given
    # at creation, or on first use to an organization made before it (realm_uuid).
    uuid = UnicodeAttribute(null=True)


class UniqueName(BaseModel):
    """Claims a name inside a scope (a subdomain, an email or a channel name in a realm).

    Written with attribute_not_exists in the same transaction as the thing it names,
    so uniqueness holds under concurrent writers; also the lookup from name to id.
    """

    Meta = table_meta("names")
    scope = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute(range_key=True)
    target_id = IntegerAttribute()


GLOBAL_SCOPE = "global"
NameKey = tuple[str, str]


def claim_name(tx: TransactWrite, key: NameKey, target_id: int) -> None:
    """Claims a name for target_id; the transaction fails if the name is taken."""
    tx.save(UniqueName(*key, target_id=target_id), condition=UniqueName.name.does_not_exist())


def release_name(tx: TransactWrite, key: NameKey, target_id: int) -> None:
    """Gives up target_id's claim on a name (never another's)."""
    tx.delete(UniqueName(*key), condition=UniqueName.target_id == target_id)


def move_name(tx: TransactWrite, old: NameKey, new: NameKey, target_id: int) -> None:
    """Moves target_id's claim to a new name in the same transaction as the rename; a
    rename that keeps the key (a change of case) leaves the claim alone."""
    if old != new:
        release_name(tx, old, target_id)
        claim_name(tx, new, target_id)


def subdomain_key(subdomain: str) -> tuple[str, str]:
    return GLOBAL_SCOPE, f"subdomain:{subdomain.lower()}"


def email_key(realm_id: int, email: str) -> tuple[str, str]:
    return f"realm:{realm_id}", f"email:{email.strip().lower()}"


def stream_name_key(realm_id: int, name: str) -> tuple[str, str]:
    return f"realm:{realm_id}", f"stream:{name.strip().lower()}"


def group_name_key(realm_id: int, name: str) -> tuple[str, str]:
    return f"realm:{realm_id}", f"group:{name.strip().lower()}"


def get_realm_by_subdomain(subdomain: str) -> Realm | None:
    if not SUBDOMAIN_RE.match(subdomain.lower()):   # no realm has it: no lookup (key size)
        return None
    scope, key = subdomain_key(subdomain)
    claim = UniqueName.get_or_none(scope, key)
    return None if claim is None else Realm.get_or_none(claim.target_id)


def realm_uuid(realm: Realm) -> str:
    """The organization's UUID; one made before UUIDs gets one now, once (of two
    concurrent first uses, the first write wins and both answer with it)."""
    if realm.uuid:
        return realm.uuid
    try:
        realm.update(actions=[Realm.uuid.set(str(uuid.uuid4()))],
                     condition=Realm.uuid.does_not_exist())
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise
        realm.refresh(consistent_read=True)
    assert realm.uuid is not None  # nosec B101 # set by the update or by the winner
    return realm.uuid


def get_realm(realm_id: int) -> Realm:
    realm = Realm.get_or_none(realm_id)
    if realm is None:
        raise ApiError("Invalid organization")
    return realm


SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$")


def realm_setting(realm: Realm, name: str) -> Any:
    stored = realm.settings.as_dict() if realm.settings else {}
    return stored.get(name, DEFAULTS[name])


def empty_topic_display_name(realm: Realm) -> str:
    """What clients without the empty_topic_name capability see for the empty topic."""
    return str(realm_setting(realm, "realm_empty_topic_display_name"))


def realm_group_setting(realm: Realm, name: str) -> GroupSettingValue:
    return stored_group_setting(realm.settings, name, GROUP_SETTING_DEFAULTS[name])
