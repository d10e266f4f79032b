"""User groups as their readers see them (§2.8): the API shape, the system groups'
role-based members, the group's permission settings and their defaults, and the
listing. Changing groups is in user_groups.py and user_group_members.py."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypedDict

from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.user_rows import UserRow
from chalicelib.models.users import User
from chalicelib.rules.group_settings import (
    GROUP_PERMISSION_DEFAULTS,
    GroupSettingValue,
    stored_group_setting,
)
from chalicelib.rules.realm_settings import (
    SYSTEM_GROUP_DIRECT_ROLES,
    SYSTEM_GROUP_SUBGROUP,
    SYSTEM_GROUPS,
    system_group_id,
)


class UserGroupProperties(TypedDict):
    """What a group's update changes: its name, description, state and group settings."""

    name: str
    description: str
    deactivated: bool
    can_add_members_group: GroupSettingValue
    can_join_group: GroupSettingValue
    can_leave_group: GroupSettingValue
    can_manage_group: GroupSettingValue
    can_mention_group: GroupSettingValue
    can_remove_members_group: GroupSettingValue


class UserGroupChanges(TypedDict, total=False):
    """The properties an update changed, only those. Python has no partial of a TypedDict,
    so this is UserGroupProperties with every key optional (tests/unit/test_user_group_shapes.py
    holds the two equal)."""

    name: str
    description: str
    deactivated: bool
    can_add_members_group: GroupSettingValue
    can_join_group: GroupSettingValue
    can_leave_group: GroupSettingValue
    can_manage_group: GroupSettingValue
    can_mention_group: GroupSettingValue
    can_remove_members_group: GroupSettingValue


class UserGroupDict(UserGroupProperties):
    """A group as clients see it."""

    id: int
    members: list[int]
    direct_subgroup_ids: list[int]
    is_system_group: bool
    creator_id: int | None
    date_created: int | None


class UserGroupsResult(TypedDict):
    user_groups: list[UserGroupDict]


def require_member_or_admin(caller: Principal) -> None:
    """User-group endpoints are for human non-guest users, as in the reference."""
    if caller.is_guest:
        raise ApiError("Guests cannot do this")
    if caller.is_bot:
        raise ApiError("Bots cannot use this endpoint.")


BOTS_IN_GROUPS_LEVEL = 496   # bots create groups and read them and their members


def require_member_admin_or_bot(caller: Principal) -> None:
    """Creating groups and reading them: also for bots from level 496 (never guests)."""
    if caller.is_bot and not caller.is_guest and level_reached(BOTS_IN_GROUPS_LEVEL):
        return
    require_member_or_admin(caller)


def get_user_group(realm_id: int, group_id: int) -> UserGroup:
    group = UserGroup.get_or_none(realm_id, group_id)
    if group is None:
        raise ApiError("No such user group exists")
    return group


def group_setting(group: UserGroup, name: str) -> GroupSettingValue:
    if group.is_system_group:   # nobody changes system groups; everyone may mention them
        default = "role:everyone" if name == "can_mention_group" else "role:nobody"
    else:
        default = GROUP_PERMISSION_DEFAULTS[name]
    return stored_group_setting(group.group_settings, name, default, group.creator_id)


def user_group_dict(group: UserGroup, role_members: dict[int, list[int]] | None = None
                    ) -> UserGroupDict:
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
    result: UserGroupDict = {
        "id": group.group_id,
        "name": group.name,
        "description": group.description,
        "members": members,
        "direct_subgroup_ids": subgroups,
        "is_system_group": group.is_system_group,
        "deactivated": group.deactivated,
        "creator_id": group.creator_id,
        "date_created": group.date_created,
        "can_add_members_group": group_setting(group, "can_add_members_group"),
        "can_join_group": group_setting(group, "can_join_group"),
        "can_leave_group": group_setting(group, "can_leave_group"),
        "can_manage_group": group_setting(group, "can_manage_group"),
        "can_mention_group": group_setting(group, "can_mention_group"),
        "can_remove_members_group": group_setting(group, "can_remove_members_group"),
    }
    return result


def _role_members(users: Iterable[User | UserRow]) -> dict[int, list[int]]:
    """Active users by role: the members of the role-based system groups."""
    by_role: dict[int, list[int]] = {}
    for user in users:
        if user.is_active:
            by_role.setdefault(int(user.role), []).append(user.user_id)
    return by_role


def user_groups_state(realm_id: int, include_deactivated: bool,
                      realm_users: Sequence[User | UserRow] | None = None
                      ) -> list[UserGroupDict]:
    """Every group of the realm (one Query); the system groups' members come from the
    realm's users (`realm_users` if the caller has them, else one Query)."""
    groups = [g for g in UserGroup.query(realm_id) if include_deactivated or not g.deactivated]
    role_members = {}
    if any(g.is_system_group for g in groups):
        role_members = _role_members(realm_users if realm_users is not None
                                     else User.query(realm_id))
    return [user_group_dict(g, role_members) for g in sorted(groups, key=lambda g: g.group_id)]


def list_user_groups(caller: Principal, include_deactivated_groups: bool
                     ) -> UserGroupsResult:
    require_member_admin_or_bot(caller)
    return {"user_groups": user_groups_state(caller.realm_id, include_deactivated_groups)}
