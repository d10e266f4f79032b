"""User groups (§2.8, §4.13, §4.14): creating, editing, deactivating, members and subgroups.

Every change is one transaction holding the group's conditional update and its
`user_group` event. Members and subgroups change with set ADD/DELETE, so concurrent
changes by different people all stick. Deactivated groups and system groups are immutable.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.group_settings import (
    MAX_SUBGROUP_DEPTH,
    GroupSettingValue,
    caller_has_realm_permission,
    check_group_setting_value,
    is_system_group,
    normalize,
    realm_group_setting,
    user_has_group_setting,
)
from chalicelib.actions.ids import allocate_id
from chalicelib.actions.realms import SYSTEM_GROUPS, get_realm, system_group_id
from chalicelib.events.outbox import add_event
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError, ConflictError
from chalicelib.lib.realm_settings import GROUP_SETTING_DEFAULTS
from chalicelib.lib.timeutil import now_seconds
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.realms import Realm, UniqueName, group_name_key
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User

MAX_NAME_LENGTH = 100
MAX_DESCRIPTION_LENGTH = 1024
RESERVED_NAME_PREFIXES = ("@", "role:", "user:", "stream:", "channel:")
# One transaction holds the group, its event and a check per added subgroup.
MAX_SUBGROUPS_PER_REQUEST = 90
MAX_MEMBERS_PER_REQUEST = 1000

# The group's own permission settings and their defaults for new groups, as the
# reference: "group_creator" is the anonymous group of just the creator.
GROUP_CREATOR = "group_creator"
GROUP_PERMISSION_DEFAULTS: dict[str, str] = {
    "can_add_members_group": GROUP_CREATOR,
    "can_join_group": "role:nobody",
    "can_leave_group": "role:everyone",
    "can_manage_group": GROUP_CREATOR,
    "can_mention_group": "role:everyone",
    "can_remove_members_group": "role:nobody",
}
GROUP_PERMISSION_SETTINGS = tuple(GROUP_PERMISSION_DEFAULTS)
# System groups that a setting may not name, as the reference limits them.
FORBIDDEN_SYSTEM_GROUPS: dict[str, set[str]] = {
    "can_manage_group": {"role:everyone"},
    "can_mention_group": {"role:owners"},
}
# Role-based direct members of each system group; each includes the next stricter one
# as its subgroup (owners ⊂ administrators ⊂ moderators ⊂ full members ⊂ members ⊂ everyone).
SYSTEM_GROUP_DIRECT_ROLES: dict[str, set[int]] = {
    "role:owners": {100},
    "role:administrators": {200},
    "role:moderators": {300},
    "role:fullmembers": {400},
    "role:members": set(),
    "role:everyone": {600},
    "role:nobody": set(),
}
SYSTEM_GROUP_SUBGROUP: dict[str, str] = {
    "role:administrators": "role:owners",
    "role:moderators": "role:administrators",
    "role:fullmembers": "role:moderators",
    "role:members": "role:fullmembers",
    "role:everyone": "role:members",
}
EVERYONE = {"realm": True}


# ---- reading ------------------------------------------------------------------------

def require_member_or_admin(caller: Principal) -> None:
    """User-group endpoints are for human non-guest users, as in the reference."""
    if caller.is_guest:
        raise ApiError("Not allowed for guest users")
    if caller.is_bot:
        raise ApiError("This endpoint does not accept bot requests.")


def get_user_group(realm_id: int, group_id: int) -> UserGroup:
    group = UserGroup.get_or_none(realm_id, group_id)
    if group is None:
        raise ApiError("Invalid user group")
    return group


def group_setting(group: UserGroup, name: str) -> GroupSettingValue:
    stored = group.group_settings.as_dict() if group.group_settings else {}
    if name in stored:
        return normalize(stored[name])
    if group.is_system_group:   # nobody changes system groups; everyone may mention them
        return system_group_id("role:everyone" if name == "can_mention_group"
                               else "role:nobody")
    return _default_value(name, group.creator_id)


def _default_value(name: str, creator_id: int | None) -> GroupSettingValue:
    default = GROUP_PERMISSION_DEFAULTS[name]
    if default == GROUP_CREATOR:
        return {"direct_members": [creator_id] if creator_id else [], "direct_subgroups": []}
    return system_group_id(default)


def user_group_dict(group: UserGroup, role_members: dict[int, list[int]] | None = None
                    ) -> dict[str, Any]:
    """The API shape of a group; system groups take their members from `role_members`."""
    if group.is_system_group:
        name = SYSTEM_GROUPS[group.group_id - 1]
        members = sorted(u for role in SYSTEM_GROUP_DIRECT_ROLES[name]
                         for u in (role_members or {}).get(role, []))
        subgroups = ([system_group_id(SYSTEM_GROUP_SUBGROUP[name])]
                     if name in SYSTEM_GROUP_SUBGROUP else [])
    else:
        members = sorted(int(u) for u in group.direct_members or ())
        subgroups = sorted(int(g) for g in group.direct_subgroups or ())
    result: dict[str, Any] = {
        "id": group.group_id,
        "name": group.name,
        "description": group.description,
        "members": members,
        "direct_subgroup_ids": subgroups,
        "is_system_group": group.is_system_group,
        "deactivated": group.deactivated,
        "creator_id": group.creator_id,
        "date_created": group.date_created,
    }
    for setting in GROUP_PERMISSION_SETTINGS:
        result[setting] = group_setting(group, setting)
    return result


def _role_members(realm_id: int) -> dict[int, list[int]]:
    """Active users by role: the members of the role-based system groups."""
    by_role: dict[int, list[int]] = {}
    for user in User.query(realm_id):
        if user.is_active:
            by_role.setdefault(int(user.role), []).append(user.user_id)
    return by_role


def user_groups_state(realm_id: int, include_deactivated: bool) -> list[dict[str, Any]]:
    """Every group of the realm (one Query), plus one Query of users for the system groups."""
    groups = [g for g in UserGroup.query(realm_id) if include_deactivated or not g.deactivated]
    role_members = _role_members(realm_id) if any(g.is_system_group for g in groups) else {}
    return [user_group_dict(g, role_members) for g in sorted(groups, key=lambda g: g.group_id)]


def list_user_groups(caller: Principal, include_deactivated_groups: bool) -> dict[str, Any]:
    require_member_or_admin(caller)
    return {"user_groups": user_groups_state(caller.realm_id, include_deactivated_groups)}


def _direct_member(group: UserGroup, user: User) -> bool:
    if group.is_system_group:
        return int(user.role) in SYSTEM_GROUP_DIRECT_ROLES[SYSTEM_GROUPS[group.group_id - 1]]
    return user.user_id in (group.direct_members or ())


def check_is_user_group_member(caller: Principal, group_id: int, user_id: int,
                               direct_member_only: bool) -> dict[str, Any]:
    require_member_or_admin(caller)
    group = get_user_group(caller.realm_id, group_id)
    user = User.get_or_none(caller.realm_id, user_id)
    if user is None:
        raise ApiError("No such user")
    if not user.is_active:   # deactivated users belong to no group
        return {"is_user_group_member": False}
    if _direct_member(group, user):
        return {"is_user_group_member": True}
    if direct_member_only:
        return {"is_user_group_member": False}
    # Through subgroups, however deep; system groups decide by role.
    value: GroupSettingValue = group_id if group.is_system_group else {
        "direct_members": [], "direct_subgroups": sorted(
            int(g) for g in group.direct_subgroups or ())}
    return {"is_user_group_member": user_has_group_setting(
        caller.realm_id, user_id, int(user.role), value)}


# ---- validation -------------------------------------------------------------------------

def _check_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise ApiError("User group name cannot be empty.")
    if len(name) > MAX_NAME_LENGTH:
        raise ApiError(f"User group name cannot exceed {MAX_NAME_LENGTH} characters.")
    for prefix in RESERVED_NAME_PREFIXES:
        if name.lower().startswith(prefix):
            raise ApiError(f"User group name cannot start with '{prefix}'.")
    return name


def _check_description(description: str) -> str:
    if len(description) > MAX_DESCRIPTION_LENGTH:
        raise ApiError(f"User group description cannot exceed {MAX_DESCRIPTION_LENGTH} "
                       "characters.")
    return description


def _check_users(realm_id: int, user_ids: list[int]) -> None:
    """Every id names an active user (bots included) of the realm: one BatchGet per 100."""
    if len(user_ids) > MAX_MEMBERS_PER_REQUEST:
        raise ApiError(f"Too many users: at most {MAX_MEMBERS_PER_REQUEST} at a time.")
    found = {u.user_id for u in User.batch_get([(realm_id, u) for u in set(user_ids)])
             if u.is_active}
    for user_id in user_ids:
        if user_id not in found:
            raise ApiError(f"Invalid user ID: {user_id}")


def _check_subgroups(realm_id: int, group_ids: list[int]) -> None:
    """Every id names an active group of the realm: one BatchGet."""
    if len(set(group_ids)) > MAX_SUBGROUPS_PER_REQUEST:
        raise ApiError(f"Too many subgroups: at most {MAX_SUBGROUPS_PER_REQUEST} at a time.")
    found = {g.group_id: g for g in UserGroup.batch_get([(realm_id, g) for g in set(group_ids)])}
    for group_id in group_ids:
        if group_id not in found:
            raise ApiError(f"Invalid user group ID: {group_id}")
        if found[group_id].deactivated:
            raise ApiError(f"User group {group_id} is deactivated and cannot be a subgroup.")


def _check_no_cycle(realm_id: int, group_id: int, new_subgroups: Iterable[int]) -> None:
    """Refuses subgroups that contain the group, however deep (a BatchGet per level)."""
    frontier = set(new_subgroups)
    seen: set[int] = set()
    depth = 0
    while frontier:
        if group_id in frontier:
            raise ApiError("User group cannot be a subgroup of itself, directly or through "
                           "its subgroups.")
        depth += 1
        if depth > MAX_SUBGROUP_DEPTH:
            raise ApiError(f"Subgroups cannot nest more than {MAX_SUBGROUP_DEPTH} levels deep.")
        seen |= frontier
        # System groups contain only system groups, never a user group.
        wanted = [g for g in frontier if not is_system_group(g)]
        frontier = {int(s) for g in UserGroup.batch_get([(realm_id, g) for g in wanted])
                    for s in g.direct_subgroups or ()} - seen


def _check_group_settings(realm_id: int, values: dict[str, Any]) -> dict[str, GroupSettingValue]:
    checked = {}
    for name, value in values.items():
        value = check_group_setting_value(realm_id, name, value)
        forbidden = FORBIDDEN_SYSTEM_GROUPS.get(name, set())
        if isinstance(value, int) and is_system_group(value) and \
                SYSTEM_GROUPS[value - 1] in forbidden:
            raise ApiError(f"'{name}' setting cannot be set to '{SYSTEM_GROUPS[value - 1]}' "
                           "group.")
        checked[name] = value
    return checked


def _check_mutable(group: UserGroup) -> None:
    if group.is_system_group:
        raise ApiError("System groups cannot be modified.")
    if group.deactivated:
        raise ApiError(f"User group {group.group_id} is deactivated and cannot be changed.")


def _has_group_permission(caller: Principal, realm: Realm, group: UserGroup,
                          settings: Iterable[str]) -> bool:
    """Whether the caller holds any of the group's settings, or may manage every group."""
    for setting in settings:
        if user_has_group_setting(caller.realm_id, caller.user_id, caller.role,
                                  group_setting(group, setting)):
            return True
    return caller_has_realm_permission(realm, caller.user_id, caller.role,
                                       "can_manage_all_groups")


def _require(allowed: bool) -> None:
    if not allowed:
        raise ApiError("Insufficient permission")


def _conflict(error: TransactWriteError) -> None:
    if not is_condition_failure(error):
        raise error
    raise ConflictError("The user group changed meanwhile; reload and try again.") from None


# ---- creating and editing ------------------------------------------------------------------

def do_create_user_group(caller: Principal, name: str, description: str, members: list[int],
                         subgroups: list[int], settings: dict[str, Any]) -> dict[str, Any]:
    require_member_or_admin(caller)
    realm = get_realm(caller.realm_id)
    _require(caller_has_realm_permission(realm, caller.user_id, caller.role,
                                         "can_create_groups"))
    name, description = _check_name(name), _check_description(description)
    _check_users(caller.realm_id, members)
    _check_subgroups(caller.realm_id, subgroups)
    stored = _check_group_settings(caller.realm_id, settings)
    if UniqueName.get_or_none(*group_name_key(caller.realm_id, name)) is not None:
        raise ApiError(f"User group '{name}' already exists.")
    group = UserGroup(caller.realm_id, allocate_id(caller.realm_id, "group"), name=name,
                      description=description, direct_members=set(members) or None,
                      direct_subgroups=set(subgroups) or None, creator_id=caller.user_id,
                      date_created=now_seconds(), group_settings=stored or None)
    try:
        with transaction() as tx:
            tx.save(group, condition=UserGroup.group_id.does_not_exist())
            tx.save(UniqueName(*group_name_key(caller.realm_id, name), target_id=group.group_id),
                    condition=UniqueName.name.does_not_exist())
            for subgroup_id in set(subgroups):
                tx.condition_check(UserGroup, caller.realm_id, subgroup_id,
                                   condition=UserGroup.deactivated == False)
            add_event(tx, caller.realm_id, {"type": "user_group", "op": "add",
                                            "group": user_group_dict(group)}, EVERYONE)
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        if UniqueName.get_or_none(*group_name_key(caller.realm_id, name)) is not None:
            raise ApiError(f"User group '{name}' already exists.") from None
        _check_subgroups(caller.realm_id, subgroups)   # names the one deactivated meanwhile
        raise ConflictError("A subgroup changed meanwhile; try again.") from None
    return {"group_id": group.group_id}


def do_update_user_group(caller: Principal, group_id: int, name: str | None,
                         description: str | None, changes: dict[str, Any]) -> dict[str, Any]:
    require_member_or_admin(caller)
    if name is None and description is None and not changes:
        raise ApiError("No new data supplied")
    group = get_user_group(caller.realm_id, group_id)
    _check_mutable(group)
    realm = get_realm(caller.realm_id)
    _require(_has_group_permission(caller, realm, group, ["can_manage_group"]))
    data: dict[str, Any] = {}
    if name is not None and _check_name(name) != group.name:
        data["name"] = name.strip()
    if description is not None and _check_description(description) != group.description:
        data["description"] = description
    for setting, change in changes.items():
        if not isinstance(change, dict) or "new" not in change:
            change = {"new": change}
        if "old" in change and normalize(change["old"]) != group_setting(group, setting):
            raise ApiError(f"'old' value of {setting} does not match the expected value.")
        new = _check_group_settings(caller.realm_id, {setting: change["new"]})[setting]
        if new != group_setting(group, setting):
            data[setting] = new
    if not data:
        return {}
    stored = {**(group.group_settings.as_dict() if group.group_settings else {}),
              **{k: v for k, v in data.items() if k in GROUP_PERMISSION_SETTINGS}}
    actions = [getattr(UserGroup, k).set(v) for k, v in data.items()
               if k in ("name", "description")]
    if any(k in GROUP_PERMISSION_SETTINGS for k in data):
        actions.append(UserGroup.group_settings.set(stored))
    old_key = group_name_key(caller.realm_id, group.name)
    new_key = group_name_key(caller.realm_id, data.get("name", group.name))
    try:
        with transaction() as tx:
            tx.update(group, actions=actions, condition=(UserGroup.deactivated == False)
                      & (UserGroup.name == group.name))
            if new_key != old_key:
                tx.save(UniqueName(*new_key, target_id=group_id),
                        condition=UniqueName.name.does_not_exist())
                tx.delete(UniqueName(*old_key))
            add_event(tx, caller.realm_id, {"type": "user_group", "op": "update",
                                            "group_id": group_id, "data": data}, EVERYONE)
    except TransactWriteError as error:
        if is_condition_failure(error):
            _check_mutable(get_user_group(caller.realm_id, group_id))
            if "name" in data and UniqueName.get_or_none(*new_key) is not None:
                raise ApiError(f"User group '{data['name']}' already exists.") from None
        _conflict(error)
    return {}


def do_deactivate_user_group(caller: Principal, group_id: int) -> dict[str, Any]:
    require_member_or_admin(caller)
    group = get_user_group(caller.realm_id, group_id)
    _check_mutable(group)
    realm = get_realm(caller.realm_id)
    _require(_has_group_permission(caller, realm, group, ["can_manage_group"]))
    objections = _objections(realm, group_id)
    if objections:
        raise ApiError("Cannot deactivate user group in use.",
                       code="CANNOT_DEACTIVATE_GROUP_IN_USE", objections=objections)
    try:
        with transaction() as tx:
            tx.update(group, actions=[UserGroup.deactivated.set(True)],
                      condition=UserGroup.deactivated == False)
            # Clients with the include_deactivated_groups capability keep the group.
            add_event(tx, caller.realm_id, {"type": "user_group", "op": "update",
                                            "group_id": group_id,
                                            "data": {"deactivated": True}}, EVERYONE)
    except TransactWriteError as error:
        if is_condition_failure(error):   # deactivated meanwhile: say so
            _check_mutable(get_user_group(caller.realm_id, group_id))
        _conflict(error)
    return {}


def _names_group(value: GroupSettingValue, group_id: int) -> bool:
    return value == group_id if isinstance(value, int) else group_id in value[
        "direct_subgroups"]


def _objections(realm: Realm, group_id: int) -> list[dict[str, Any]]:
    """Where the realm's settings and other groups use the group (the realm item and one
    Query of groups). Channel permission settings are not checked here."""
    objections: list[dict[str, Any]] = []
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
    realm_used = [s for s in GROUP_SETTING_DEFAULTS
                  if _names_group(realm_group_setting(realm, s), group_id)]
    if realm_used:
        objections.insert(0, {"type": "realm", "settings": realm_used})
    if supergroups:
        objections.insert(0, {"type": "subgroup", "supergroup_ids": sorted(supergroups)})
    return objections


# ---- members and subgroups ------------------------------------------------------------------

def do_update_members(caller: Principal, group_id: int, add: list[int], delete: list[int],
                      add_subgroups: list[int], delete_subgroups: list[int]) -> dict[str, Any]:
    """POST /user_groups/{id}/members (§4.13), also serving §4.14 for subgroups."""
    require_member_or_admin(caller)
    if not (add or delete or add_subgroups or delete_subgroups):
        raise ApiError("Nothing to do. Specify at least one of 'add', 'delete', "
                       "'add_subgroups' or 'delete_subgroups'.")
    group = get_user_group(caller.realm_id, group_id)
    _check_mutable(group)
    realm = get_realm(caller.realm_id)
    _check_permissions(caller, realm, group, add, delete, add_subgroups, delete_subgroups)
    members = {int(u) for u in group.direct_members or ()}
    subgroups = {int(g) for g in group.direct_subgroups or ()}
    for user_id in add:
        if user_id in members:
            raise ApiError(f"User {user_id} is already a member of this group")
    for user_id in delete:
        if user_id not in members | set(add):
            raise ApiError(f"There is no member '{user_id}' in this user group")
    for subgroup_id in add_subgroups:
        if subgroup_id in subgroups:
            raise ApiError(f"User group {subgroup_id} is already a subgroup of this group.")
    for subgroup_id in delete_subgroups:
        if subgroup_id not in subgroups | set(add_subgroups):
            raise ApiError(f"User group {subgroup_id} is not a subgroup of this group.")
    if add:
        _check_users(caller.realm_id, add)
    if add_subgroups:
        _check_subgroups(caller.realm_id, add_subgroups)
        _check_no_cycle(caller.realm_id, group_id, add_subgroups)
    if add or add_subgroups:
        _apply(caller.realm_id, group, set(add), set(add_subgroups), adding=True)
    if delete or delete_subgroups:
        _apply(caller.realm_id, group, set(delete), set(delete_subgroups), adding=False)
    return {}


def _check_permissions(caller: Principal, realm: Realm, group: UserGroup, add: list[int],
                       delete: list[int], add_subgroups: list[int],
                       delete_subgroups: list[int]) -> None:
    # Joining or leaving oneself has its own setting; the others need add/remove rights.
    needed: list[list[str]] = []
    if add or add_subgroups:
        only_self = not add_subgroups and set(add) == {caller.user_id}
        needed.append(["can_join_group", "can_add_members_group", "can_manage_group"]
                      if only_self else ["can_add_members_group", "can_manage_group"])
    if delete or delete_subgroups:
        only_self = not delete_subgroups and set(delete) == {caller.user_id}
        needed.append(["can_leave_group", "can_remove_members_group", "can_manage_group"]
                      if only_self else ["can_remove_members_group", "can_manage_group"])
    for settings in needed:
        _require(_has_group_permission(caller, realm, group, settings))


def _apply(realm_id: int, group: UserGroup, users: set[int], subgroups: set[int],
           adding: bool) -> None:
    """One conditional UpdateItem (set ADD or DELETE) with its events, in one transaction."""
    condition = UserGroup.deactivated == False
    actions = []
    if users:
        attribute = UserGroup.direct_members
        actions.append(attribute.add(users) if adding else attribute.delete(users))
        for user_id in sorted(users):   # the events say exactly what changed
            contains = attribute.contains(user_id)
            condition &= ~contains if adding else contains
    if subgroups:
        attribute = UserGroup.direct_subgroups
        actions.append(attribute.add(subgroups) if adding else attribute.delete(subgroups))
        for subgroup_id in sorted(subgroups):
            contains = attribute.contains(subgroup_id)
            condition &= ~contains if adding else contains
    try:
        with transaction() as tx:
            tx.update(group, actions=actions, condition=condition)
            if adding:
                for subgroup_id in sorted(subgroups):
                    tx.condition_check(UserGroup, realm_id, subgroup_id,
                                       condition=UserGroup.deactivated == False)
            if users:
                add_event(tx, realm_id, {
                    "type": "user_group", "op": "add_members" if adding else "remove_members",
                    "group_id": group.group_id, "user_ids": sorted(users)}, EVERYONE)
            if subgroups:
                add_event(tx, realm_id, {
                    "type": "user_group",
                    "op": "add_subgroups" if adding else "remove_subgroups",
                    "group_id": group.group_id, "direct_subgroup_ids": sorted(subgroups)},
                    EVERYONE)
    except TransactWriteError as error:
        if is_condition_failure(error):   # deactivated meanwhile: say so
            _check_mutable(get_user_group(realm_id, group.group_id))
        _conflict(error)
