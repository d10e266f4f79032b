"""Group-setting values (§2.7): who they include, and checking new values.

A value is a group id (a role-based system group or a user group) or an anonymous
group `{"direct_members": [...], "direct_subgroups": [...]}`. System-group membership
follows from the role alone, so the common case needs no read at all.
"""
from __future__ import annotations

from typing import Any

from chalicelib.core.errors import ApiError, expectation_mismatch
from chalicelib.models.realms import Realm, realm_group_setting
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User
from chalicelib.rules.group_settings import (
    ALLOWED_SYSTEM_GROUPS,
    FORBIDDEN_SYSTEM_GROUPS,
    GROUP_PERMISSION_DEFAULTS,
    GroupSettingValue,
    is_system_group,
    normalize,
    stored_group_setting,
)
from chalicelib.rules.realm_settings import (
    SYSTEM_GROUP_MAX_ROLE,
    SYSTEM_GROUPS,
    system_group_id,
)

MAX_SUBGROUP_DEPTH = 10   # nesting deeper than this is refused when groups are edited


def _role_in_system_group(role: int, group_id: int) -> bool:
    return role <= SYSTEM_GROUP_MAX_ROLE[SYSTEM_GROUPS[group_id - 1]]


def user_has_group_setting(realm_id: int, user_id: int, role: int,
                           value: GroupSettingValue) -> bool:
    """Whether the (active) user is in the group the value names, subgroups included."""
    if isinstance(value, dict):
        if user_id in value["direct_members"]:
            return True
        pending = list(value["direct_subgroups"])
    else:
        pending = [value]
    seen: set[int] = set()
    while pending:
        # System groups decide by role; user groups are read a level at a time.
        if any(is_system_group(g) and _role_in_system_group(role, g) for g in pending):
            return True
        wanted = [g for g in pending if not is_system_group(g) and g not in seen]
        seen.update(wanted)
        if not wanted:
            return False
        groups = [g for g in UserGroup.batch_get([(realm_id, g) for g in wanted])
                  if not g.deactivated]
        if any(user_id in (g.direct_members or ()) for g in groups):
            return True
        pending = [s for g in groups for s in (g.direct_subgroups or ())]
    return False


def caller_has_realm_permission(realm: Realm, user_id: int, role: int, setting: str) -> bool:
    return user_has_group_setting(realm.realm_id, user_id, role,
                                  realm_group_setting(realm, setting))


def group_setting_members(realm_id: int, value: GroupSettingValue) -> tuple[set[int], int]:
    """Who a value includes: user ids named through user groups (however nested), and the
    role at or above which users are in by a system group (0: by none). A BatchGet per
    level of nesting; for fan-outs that test many users against one value."""
    if isinstance(value, dict):
        users = set(value["direct_members"])
        pending = list(value["direct_subgroups"])
    else:
        users, pending = set(), [value]
    max_role, seen = 0, set()
    while pending:
        for g in pending:
            if is_system_group(g):
                max_role = max(max_role, SYSTEM_GROUP_MAX_ROLE[SYSTEM_GROUPS[g - 1]])
        wanted = [g for g in set(pending) if not is_system_group(g) and g not in seen]
        seen.update(wanted)
        groups = [g for g in UserGroup.batch_get([(realm_id, g) for g in wanted])
                  if not g.deactivated] if wanted else []
        users.update(int(u) for g in groups for u in g.direct_members or ())
        pending = [int(s) for g in groups for s in g.direct_subgroups or ()]
    return users, max_role


def check_group_setting_value(realm_id: int, setting: str, value: Any) -> GroupSettingValue:
    """The value, normalized, if every group and user it names exists in the realm."""
    checked = normalize(value)
    allowed = ALLOWED_SYSTEM_GROUPS.get(setting)
    if allowed is not None:
        if isinstance(checked, dict) or not is_system_group(checked) or \
                SYSTEM_GROUPS[checked - 1] not in allowed:
            raise ApiError(f"Invalid '{setting}': it must be one of the system groups "
                           + ", ".join(sorted(allowed)) + ".")
        return checked
    group_ids = [checked] if isinstance(checked, int) else checked["direct_subgroups"]
    user_ids = [] if isinstance(checked, int) else checked["direct_members"]
    for group_id in group_ids:
        if is_system_group(group_id) and \
                SYSTEM_GROUPS[group_id - 1] in FORBIDDEN_SYSTEM_GROUPS.get(setting, ()):
            raise ApiError(f"The setting '{setting}' cannot use the group '{SYSTEM_GROUPS[group_id - 1]}'.")
    custom = [g for g in group_ids if not is_system_group(g)]
    found = {g.group_id for g in UserGroup.batch_get([(realm_id, g) for g in set(custom)])
             if not g.deactivated} if custom else set()
    for group_id in group_ids:
        if not is_system_group(group_id) and group_id not in found:
            raise ApiError(f"No user group with ID {group_id} exists")
    users = {u.user_id: u for u in User.batch_get([(realm_id, u) for u in set(user_ids)])
             } if user_ids else {}
    for user_id in user_ids:
        if user_id not in users or not users[user_id].is_active:
            raise ApiError(f"No user with ID {user_id} exists")
    return checked


# Settings of a user group that change who is in it.
MEMBERSHIP_SETTINGS = ("can_add_members_group", "can_join_group", "can_manage_group",
                       "can_remove_members_group")
ADMINISTRATOR_GROUPS = frozenset(system_group_id(name) for name in (
    "role:owners", "role:administrators", "role:nobody"))


def _administrators_only(value: GroupSettingValue) -> bool:
    """Whether only administrators (or no one) are in the value: checked by its shape, so
    an anonymous group naming users is not (the users' roles may change)."""
    if isinstance(value, dict):
        return not value["direct_members"] and \
            all(g in ADMINISTRATOR_GROUPS for g in value["direct_subgroups"])
    return value in ADMINISTRATOR_GROUPS


def check_admin_managed_membership(realm: Realm, setting: str,
                                   value: GroupSettingValue) -> None:
    """A setting that decides who is billed (workplace_users_group, level 477) names only
    groups whose membership administrators alone change: system groups (their members
    follow from roles) and user groups, however nested, whose membership settings, and
    the organization's can_manage_all_groups, are administrators only. A BatchGet per
    level of nesting."""
    pending = list(value["direct_subgroups"]) if isinstance(value, dict) else [value]
    seen: set[int] = set()
    while pending:
        wanted = [g for g in set(pending) if not is_system_group(g) and g not in seen]
        if not wanted:
            return
        if not seen and not _administrators_only(
                realm_group_setting(realm, "can_manage_all_groups")):
            raise _not_admin_managed(setting)
        seen.update(wanted)
        groups = list(UserGroup.batch_get([(realm.realm_id, g) for g in wanted]))
        for group in groups:
            stored = group.group_settings
            for name in MEMBERSHIP_SETTINGS:
                if not _administrators_only(stored_group_setting(
                        stored, name, GROUP_PERMISSION_DEFAULTS[name], group.creator_id)):
                    raise _not_admin_managed(setting)
        pending = [int(s) for g in groups for s in g.direct_subgroups or ()]


def _not_admin_managed(setting: str) -> ApiError:
    return ApiError(f"'{setting}' must name groups whose membership only organization "
                    "administrators can change.")


def check_group_setting_change(realm_id: int, setting: str, change: Any,
                               current: Any) -> GroupSettingValue:
    """The new value of a `{new, old}` change (§2.7); `old`, when given, must match `current`."""
    if not isinstance(change, dict) or "new" not in change:
        change = {"new": change}
    if "old" in change and normalize(change["old"]) != normalize(current):
        raise expectation_mismatch("old")
    return check_group_setting_value(realm_id, setting, change["new"])
