"""Group-setting values (§2.7): who they include, and checking new values.

A value is a group id (a role-based system group or a user group) or an anonymous
group `{"direct_members": [...], "direct_subgroups": [...]}`. System-group membership
follows from the role alone, so the common case needs no read at all.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any, TypedDict

from chalicelib.core.errors import ApiError, expectation_mismatch
from chalicelib.lib.realm_settings import (
    GROUP_SETTING_DEFAULTS,
    SYSTEM_GROUP_MAX_ROLE,
    SYSTEM_GROUPS,
    system_group_id,
)
from chalicelib.models.realms import Realm
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User


class AnonymousGroup(TypedDict):
    """A group-setting value that is not a named group: users and groups, directly."""

    direct_members: list[int]
    direct_subgroups: list[int]


GroupSettingValue = int | AnonymousGroup
MAX_SUBGROUP_DEPTH = 10   # nesting deeper than this is refused when groups are edited


def normalize(value: Any) -> GroupSettingValue:
    """A stored or submitted value in its canonical shape (DynamoDB returns Decimals).

    As the reference: an anonymous group of exactly one subgroup is that group's id,
    and an empty one is the nobody group.
    """
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, dict) and set(value) <= {"direct_members", "direct_subgroups"}:
        try:
            members = sorted({int(v) for v in value.get("direct_members") or []})
            subgroups = sorted({int(v) for v in value.get("direct_subgroups") or []})
        except (TypeError, ValueError):
            pass   # not ids: refused below
        else:
            if not members and len(subgroups) <= 1:
                return subgroups[0] if subgroups else system_group_id("role:nobody")
            return {"direct_members": members, "direct_subgroups": subgroups}
    raise ApiError("Invalid group setting value: give a group id or an object with "
                   "direct_members and direct_subgroups.")


# A default meaning "the creator of the channel or group": an anonymous group of one.
CREATOR = "creator"


def stored_group_setting(stored: Any, name: str, default: str,
                         creator_id: int | None = None) -> GroupSettingValue:
    """A group setting as stored in a realm's, channel's or group's map of settings, or
    its default: a system group's name, or CREATOR."""
    values = stored.as_dict() if stored else {}
    if name in values:
        return normalize(values[name])
    if default == CREATOR:
        return normalize({"direct_members": [creator_id] if creator_id else [],
                          "direct_subgroups": []})
    return system_group_id(default)


def realm_group_setting(realm: Realm, name: str) -> GroupSettingValue:
    return stored_group_setting(realm.settings, name, GROUP_SETTING_DEFAULTS[name])


def is_system_group(group_id: int) -> bool:
    return 1 <= group_id <= len(SYSTEM_GROUPS)


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


# Settings whose value may only be one of these system groups (as the reference limits them).
ALLOWED_SYSTEM_GROUPS: dict[str, set[str]] = {
    "can_access_all_users_group": {"role:everyone", "role:members"},
}
# System groups that a setting may not name, directly or as a subgroup of an anonymous
# group, as the reference limits them (guests may never administer or add subscribers).
FORBIDDEN_SYSTEM_GROUPS: dict[str, set[str]] = {
    "can_manage_group": {"role:everyone"},
    "can_mention_group": {"role:owners"},
    "can_add_subscribers_group": {"role:everyone"},
    "can_administer_channel_group": {"role:everyone"},
    "can_delete_any_message_group": {"role:everyone"},
}


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
            raise ApiError(f"'{setting}' setting cannot be set to "
                           f"'{SYSTEM_GROUPS[group_id - 1]}' group.")
    custom = [g for g in group_ids if not is_system_group(g)]
    found = {g.group_id for g in UserGroup.batch_get([(realm_id, g) for g in set(custom)])
             if not g.deactivated} if custom else set()
    for group_id in group_ids:
        if not is_system_group(group_id) and group_id not in found:
            raise ApiError(f"Invalid user group ID: {group_id}")
    users = {u.user_id: u for u in User.batch_get([(realm_id, u) for u in set(user_ids)])
             } if user_ids else {}
    for user_id in user_ids:
        if user_id not in users or not users[user_id].is_active:
            raise ApiError(f"Invalid user ID: {user_id}")
    return checked


def check_group_setting_change(realm_id: int, setting: str, change: Any,
                               current: Any) -> GroupSettingValue:
    """The new value of a `{new, old}` change (§2.7); `old`, when given, must match `current`."""
    if not isinstance(change, dict) or "new" not in change:
        change = {"new": change}
    if "old" in change and normalize(change["old"]) != normalize(current):
        raise expectation_mismatch("old")
    return check_group_setting_value(realm_id, setting, change["new"])
