"""Creating organizations and finding them by subdomain."""
from __future__ import annotations

import uuid

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.users.users import NewUser, NewUserDefaults, user_items
from chalicelib.core.errors import ApiError
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.ids import GLOBAL_COUNTER, allocate_ids, realm_scope
from chalicelib.models.realms import SUBDOMAIN_RE, Realm, claim_name, get_realm_by_subdomain, subdomain_key
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import ApiKey, User
from chalicelib.rules.avatars import AVATAR_SOURCE_JDENTICON, DEFAULT_AVATAR_SOURCES
from chalicelib.rules.realm_settings import SYSTEM_GROUPS, system_group_id
from chalicelib.rules.timeutil import now_seconds

RESERVED_SUBDOMAINS = {"www", "api", "admin", "static", "mail"}
def check_subdomain(subdomain: str) -> str:
    subdomain = subdomain.strip().lower()
    if not SUBDOMAIN_RE.match(subdomain) or subdomain in RESERVED_SUBDOMAINS:
        raise ApiError(f"Subdomain '{subdomain}' is not allowed: use 1-40 lowercase letters, "
                       "digits and inner hyphens.")
    return subdomain


def do_create_realm(name: str, subdomain: str, owner: NewUser, *,
                    avatar_source: str = AVATAR_SOURCE_JDENTICON) -> tuple[Realm, int, str]:
    """Creates a realm, its system groups and its owner; returns (realm, owner id, API key).
    `avatar_source`: its default_avatar_source ("G" for an organization that should keep
    Gravatar, as one made before the setting does)."""
    if avatar_source not in DEFAULT_AVATAR_SOURCES:
        raise ApiError("Invalid default_avatar_source")
    subdomain = check_subdomain(subdomain)
    if not name.strip():
        raise ApiError("The organization name cannot be empty.")
    if get_realm_by_subdomain(subdomain) is not None:
        raise ApiError(f"Subdomain '{subdomain}' is already in use.")
    realm_id = allocate_ids(GLOBAL_COUNTER, "realm")[0]
    allocate_ids(realm_scope(realm_id), "group", len(SYSTEM_GROUPS))
    owner_id = allocate_ids(realm_scope(realm_id), "user")[0]
    now = now_seconds()
    # By default a new organization's people get generated pictures, the reference's
    # default for new organizations (one made before the setting keeps Gravatar).
    realm = Realm(realm_id, name=name.strip(), subdomain=subdomain, date_created=now,
                  uuid=str(uuid.uuid4()), settings={"default_avatar_source": avatar_source})
    scope, key = subdomain_key(subdomain)
    generated = avatar_source == AVATAR_SOURCE_JDENTICON
    items, api_key = user_items(realm_id, owner_id, owner, NewUserDefaults(
        {}, None, generated_avatars_of=realm.uuid if generated else None))
    try:
        with transaction() as tx:
            tx.save(realm, condition=Realm.realm_id.does_not_exist())
            claim_name(tx, (scope, key), realm_id)
            for group_name in SYSTEM_GROUPS:
                tx.save(UserGroup(realm_id, system_group_id(group_name), name=group_name,
                                  is_system_group=True, date_created=now))
            for item, condition in items:
                tx.save(item, condition=condition)
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError(f"Subdomain '{subdomain}' is already in use.") from None
        raise
    return realm, owner_id, api_key


def do_deactivate_realm(realm: Realm) -> int:
    """Deactivates a realm and its API keys (in batches); returns how many keys changed.

    Resumable: running it again after a crash finishes the remaining keys.
    """
    realm.update(actions=[Realm.deactivated.set(True)])
    changed = 0
    key_hashes = [key for user in User.query(realm.realm_id)
                  for key in [user.api_key_hash, *(user.extra_api_key_hashes or ())]]
    with ApiKey.batch_write() as batch:
        for record in ApiKey.batch_get(key_hashes):  # pages of 100 keys per request
            if record.realm_active:
                record.realm_active = False
                batch.save(record)
                changed += 1
    return changed
