"""User groups (§2.8): who may change them, creating, editing, deactivating (their API
shape and listing: user_group_reads.py).

Every change is one transaction holding the group's update, conditioned on the version
it read, and its `user_group` event (a group created with more members than one
transaction holds gets the others in further ones, group_membership.py). Deactivated
groups and system groups are immutable. Members and subgroups change in
user_group_members.py.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypedDict, cast

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.groups.membership import (
    EVERYONE,
    USERS_PER_TRANSACTION,
    batches,
    check_users,
    lost_race,
    stage_users,
    version_condition,
    write_members,
)
from chalicelib.actions.groups.reads.settings import (
    caller_has_realm_permission,
    check_group_setting_change,
    check_group_setting_value,
    user_has_group_setting,
)
from chalicelib.actions.groups.reads.user_groups import (
    UserGroupChanges,
    UserGroupDict,
    get_user_group,
    group_setting,
    require_member_admin_or_bot,
    require_member_or_admin,
    user_group_dict,
)
from chalicelib.core.errors import NOT_PERMITTED, ApiError, ConflictError, ErrorCode, Objection
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event
from chalicelib.delivery.types import EventFacts
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channels import Stream, channel_group_setting
from chalicelib.models.ids import allocate_id
from chalicelib.models.realms import (
    Realm,
    UniqueName,
    claim_name,
    get_realm,
    group_name_key,
    move_name,
    realm_group_setting,
)
from chalicelib.models.user_groups import UserGroup
from chalicelib.rules.group_settings import (
    CHANNEL_GROUP_SETTINGS,
    GROUP_PERMISSION_SETTINGS,
    GroupSettingValue,
)
from chalicelib.rules.realm_settings import (
    GROUP_SETTING_DEFAULTS,
)
from chalicelib.rules.timeutil import now_seconds

MAX_NAME_LENGTH = 100
MAX_DESCRIPTION_LENGTH = 1024
RESERVED_NAME_PREFIXES = ("@", "role:", "user:", "stream:", "channel:")
# One transaction holds the group, its events, the realm and a check per added subgroup.
MAX_SUBGROUPS_PER_REQUEST = 90

class CreateUserGroupResult(TypedDict):
    group_id: int


class UserGroupAddEvent(TypedDict):
    type: Literal["user_group"]
    op: Literal["add"]
    group: UserGroupDict


class UserGroupUpdateEvent(TypedDict):
    type: Literal["user_group"]
    op: Literal["update"]
    group_id: int
    data: UserGroupChanges


class UserGroupRemoveEvent(TypedDict):
    """A deactivated group, for clients without include_deactivated_groups."""

    type: Literal["user_group"]
    op: Literal["remove"]
    group_id: int


# ---- validation -------------------------------------------------------------------------

def _check_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise ApiError("User group name cannot be empty.")
    if len(name) > MAX_NAME_LENGTH:
        raise ApiError(f"A user group's name can be at most {MAX_NAME_LENGTH} characters long.")
    for prefix in RESERVED_NAME_PREFIXES:
        if name.lower().startswith(prefix):
            raise ApiError(f"A user group's name may not begin with '{prefix}'.")
    return name


def _check_description(description: str) -> str:
    if len(description) > MAX_DESCRIPTION_LENGTH:
        raise ApiError(f"User group description cannot exceed {MAX_DESCRIPTION_LENGTH} "
                       "characters.")
    return description


def check_subgroups(realm_id: int, group_ids: list[int]) -> None:
    """Every id names an active group of the realm: one BatchGet."""
    if len(set(group_ids)) > MAX_SUBGROUPS_PER_REQUEST:
        raise ApiError(f"Too many subgroups: at most {MAX_SUBGROUPS_PER_REQUEST} at a time.")
    found = {g.group_id: g for g in UserGroup.batch_get([(realm_id, g) for g in set(group_ids)])}
    for group_id in group_ids:
        if group_id not in found:
            raise ApiError(f"No user group with ID {group_id} exists")
        if found[group_id].deactivated:
            raise ApiError(f"User group {group_id} is deactivated and cannot be a subgroup.")


def _check_group_settings(realm_id: int, values: dict[str, Any]) -> dict[str, GroupSettingValue]:
    return {name: check_group_setting_value(realm_id, name, value)
            for name, value in values.items()}


def check_mutable(group: UserGroup, *, deactivated_ok: bool = False) -> None:
    if group.is_system_group:
        raise ApiError("System groups cannot be modified.")
    if group.deactivated and not deactivated_ok:
        raise ApiError(f"User group {group.group_id} is deactivated and cannot be changed.")


def has_group_permission(caller: Principal, realm: Realm, group: UserGroup,
                          settings: Iterable[str]) -> bool:
    """Whether the caller holds any of the group's settings, or may manage every group."""
    for setting in settings:
        if user_has_group_setting(caller.realm_id, caller.user_id, caller.role,
                                  group_setting(group, setting)):
            return True
    return caller_has_realm_permission(realm, caller.user_id, caller.role,
                                       "can_manage_all_groups")


def require(allowed: bool) -> None:
    if not allowed:
        raise ApiError(NOT_PERMITTED)


def can_manage_group(caller: Principal, realm: Realm, group: UserGroup) -> bool:
    return not group.is_system_group and has_group_permission(caller, realm, group,
                                                              ["can_manage_group"])


def _conflict(error: TransactWriteError, realm_id: int, group_id: int) -> None:
    if not is_condition_failure(error):
        raise error
    check_mutable(get_user_group(realm_id, group_id))   # deactivated meanwhile: say so
    raise ConflictError("The user group changed meanwhile; reload and try again.") from None


# ---- creating and editing ------------------------------------------------------------------

def do_create_user_group(caller: Principal, name: str, description: str, members: list[int],
                         subgroups: list[int], settings: dict[str, Any]
                         ) -> CreateUserGroupResult:
    require_member_admin_or_bot(caller)
    realm = get_realm(caller.realm_id)
    require(caller_has_realm_permission(realm, caller.user_id, caller.role,
                                        "can_create_groups"))
    name, description = _check_name(name), _check_description(description)
    check_users(caller.realm_id, members)
    check_subgroups(caller.realm_id, subgroups)
    stored = _check_group_settings(caller.realm_id, settings)
    if UniqueName.get_or_none(*group_name_key(caller.realm_id, name)) is not None:
        raise ApiError(f"A user group called '{name}' exists already.")
    # The members that fit beside the group, its name and subgroups come in with it; the
    # rest join in further transactions (as POST /user_groups/{id}/members would add them).
    first, *more = batches(sorted(set(members)), [], USERS_PER_TRANSACTION - len(set(subgroups)))
    group = UserGroup(caller.realm_id, allocate_id(caller.realm_id, "group"), name=name,
                      description=description, direct_members=set(first[0]) or None,
                      direct_subgroups=set(subgroups) or None, creator_id=caller.user_id,
                      date_created=now_seconds(), group_settings=stored or None, version=0)
    try:
        with transaction() as tx:
            tx.save(group, condition=UserGroup.group_id.does_not_exist())
            claim_name(tx, group_name_key(caller.realm_id, name), group.group_id)
            # A new group is in nobody's subgroups, so its own cannot make a cycle.
            for subgroup_id in set(subgroups):
                tx.condition_check(UserGroup, caller.realm_id, subgroup_id,
                                   condition=UserGroup.deactivated == False)
            stage_users(tx, caller.realm_id, group.group_id, first[0], [])
            added: UserGroupAddEvent = {"type": "user_group", "op": "add",
                                        "group": user_group_dict(group)}
            add_event(tx, caller.realm_id, added, EVERYONE)
    except TransactWriteError as error:
        if not lost_race(error):
            raise
        if UniqueName.get_or_none(*group_name_key(caller.realm_id, name)) is not None:
            raise ApiError(f"A user group called '{name}' exists already.") from None
        check_subgroups(caller.realm_id, subgroups)   # names the one deactivated meanwhile
        check_users(caller.realm_id, members)         # likewise a member
        raise ConflictError("A subgroup changed meanwhile; try again.") from None
    rest = [u for added, _ in more for u in added]
    if rest and not write_members(group, rest, []):
        # The new group changed, or a member was deactivated, meanwhile: the group exists
        # with the members written so far; POST .../members adds the others.
        check_users(caller.realm_id, rest)
        raise ConflictError("The user group changed meanwhile; add the remaining members "
                            "again.")
    return {"group_id": group.group_id}


def do_update_user_group(caller: Principal, group_id: int, name: str | None,
                         description: str | None, changes: dict[str, Any]) -> EmptyResult:
    require_member_or_admin(caller)
    if name is None and description is None and not changes:
        raise ApiError("The request changes nothing")
    group = get_user_group(caller.realm_id, group_id)
    check_mutable(group)
    realm = get_realm(caller.realm_id)
    require(can_manage_group(caller, realm, group))
    data: dict[str, Any] = {}
    if name is not None and _check_name(name) != group.name:
        data["name"] = name.strip()
    if description is not None and _check_description(description) != group.description:
        data["description"] = description
    for setting, change in changes.items():
        current = group_setting(group, setting)
        new = check_group_setting_change(caller.realm_id, setting, change, current)
        if new != current:
            data[setting] = new
    if not data:
        return {}
    actions = [UserGroup.version.add(1)] + [getattr(UserGroup, k).set(v) for k, v in
                                            data.items() if k in ("name", "description")]
    if any(k in GROUP_PERMISSION_SETTINGS for k in data):
        # Whole map: the version condition makes concurrent changes fail, not merge.
        stored = {**(group.group_settings.as_dict() if group.group_settings else {}),
                  **{k: v for k, v in data.items() if k in GROUP_PERMISSION_SETTINGS}}
        actions.append(UserGroup.group_settings.set(stored))
    old_key = group_name_key(caller.realm_id, group.name)
    new_key = group_name_key(caller.realm_id, data.get("name", group.name))
    try:
        with transaction() as tx:
            tx.update(group, actions=actions, condition=version_condition(group))
            move_name(tx, old_key, new_key, group_id)
            updated: UserGroupUpdateEvent = {"type": "user_group", "op": "update",
                                             "group_id": group_id,
                                             "data": cast(UserGroupChanges, data)}
            add_event(tx, caller.realm_id, updated, EVERYONE)
    except TransactWriteError as error:
        claim = UniqueName.get_or_none(*new_key) if "name" in data else None
        if is_condition_failure(error) and claim and claim.target_id != group_id:
            raise ApiError(f"A user group called '{data['name']}' exists already.") from None
        _conflict(error, caller.realm_id, group_id)
    return {}


def do_deactivate_user_group(caller: Principal, group_id: int) -> EmptyResult:
    require_member_or_admin(caller)
    group = get_user_group(caller.realm_id, group_id)
    check_mutable(group)
    realm = get_realm(caller.realm_id)
    require(can_manage_group(caller, realm, group))
    objections = _objections(realm, group_id)
    if objections:
        raise ApiError("This user group is still in use, so it cannot be deactivated.",
                       code=ErrorCode.CANNOT_DEACTIVATE_GROUP_IN_USE, objections=objections)
    # Clients with include_deactivated_groups keep the group; others remove it.
    removed: UserGroupRemoveEvent = {"type": "user_group", "op": "remove",
                                     "group_id": group_id}
    deactivated: UserGroupUpdateEvent = {"type": "user_group", "op": "update",
                                         "group_id": group_id, "data": {"deactivated": True}}
    older: EventFacts = {"without_capability": {
        "capability": "include_deactivated_groups", "event": removed}}
    try:
        with transaction() as tx:
            tx.update(group, actions=[UserGroup.deactivated.set(True),
                                      UserGroup.version.add(1)],
                      condition=version_condition(group))
            add_event(tx, caller.realm_id, deactivated, EVERYONE, older)
    except TransactWriteError as error:
        _conflict(error, caller.realm_id, group_id)
    return {}


def _names_group(value: GroupSettingValue, group_id: int) -> bool:
    return value == group_id if isinstance(value, int) else group_id in value[
        "direct_subgroups"]


def _objections(realm: Realm, group_id: int) -> list[Objection]:
    """Where other groups, the realm's settings and channels use the group: the realm
    item, one Query of the realm's groups and one of its channels (paged by DynamoDB)."""
    objections: list[Objection] = []
    supergroups = []
    for other in UserGroup.query(realm.realm_id):
        if other.deactivated or other.group_id == group_id:
            continue
        if group_id in (other.direct_subgroups or ()):
            supergroups.append(other.group_id)
        used = [s for s in GROUP_PERMISSION_SETTINGS
                if _names_group(group_setting(other, s), group_id)]
        if used:
            objections.append({"type": "user_group", "group_id": other.group_id,
                               "settings": used})
    for stream in Stream.query(realm.realm_id):
        used = [s for s in CHANNEL_GROUP_SETTINGS
                if _names_group(channel_group_setting(stream, s), group_id)]
        if used:
            objections.append({"type": "channel", "channel_id": stream.stream_id,
                               "settings": used})
    realm_used = [s for s in GROUP_SETTING_DEFAULTS
                  if _names_group(realm_group_setting(realm, s), group_id)]
    if realm_used:
        objections.insert(0, {"type": "realm", "settings": realm_used})
    if supergroups:
        objections.insert(0, {"type": "subgroup", "supergroup_ids": sorted(supergroups)})
    return objections
