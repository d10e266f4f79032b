"""User groups: create, list, edit, deactivate, members and subgroups (§4.13, §4.14)."""
from __future__ import annotations

from typing import Annotated, Any, TypedDict

from chalicelib.actions.groups.members import (
    IsUserGroupMemberResult,
    check_is_user_group_member,
    do_update_members,
)
from chalicelib.actions.groups.reads.user_groups import (
    UserGroupsResult,
    list_user_groups,
)
from chalicelib.actions.groups.user_groups import (
    CreateUserGroupResult,
    do_create_user_group,
    do_deactivate_user_group,
    do_update_user_group,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import GroupSettingParam, Json, changes_of

bp = ApiBlueprint(__name__)

GroupSetting = GroupSettingParam


class UserGroupSettings(TypedDict, total=False):
    """A user group's group settings: each an optional parameter of create and update."""

    can_add_members_group: GroupSetting
    can_join_group: GroupSetting
    can_leave_group: GroupSetting
    can_manage_group: GroupSetting
    can_mention_group: GroupSetting
    can_remove_members_group: GroupSetting


GroupSettingsSent = Annotated[dict[str, Any], changes_of(UserGroupSettings)]


@bp.endpoint("/user_groups/create", "POST")
def create_user_group(
    caller: Principal, *,
    name: str,
    description: str,
    members: Json[list[int]],
    subgroups: Json[list[int]] | None = None,
    settings: GroupSettingsSent,
) -> CreateUserGroupResult:
    return do_create_user_group(caller, name, description, members, subgroups or [], settings)


@bp.endpoint("/user_groups", "GET")
def get_user_groups(caller: Principal, *,
                    include_deactivated_groups: bool = False) -> UserGroupsResult:
    return list_user_groups(caller, include_deactivated_groups)


@bp.endpoint("/user_groups/{user_group_id}", "PATCH")
def update_user_group(
    caller: Principal, *,
    user_group_id: int,
    name: str | None = None,
    description: str | None = None,
    settings: GroupSettingsSent,
) -> EmptyResult:
    return do_update_user_group(caller, user_group_id, name, description, settings)


@bp.endpoint("/user_groups/{user_group_id}/deactivate", "POST")
def deactivate_user_group(caller: Principal, *, user_group_id: int) -> EmptyResult:
    return do_deactivate_user_group(caller, user_group_id)


@bp.endpoint("/user_groups/{user_group_id}/members", "POST")
def update_user_group_members(
    caller: Principal, *,
    user_group_id: int,
    add: Json[list[int]] | None = None,
    delete: Json[list[int]] | None = None,
    add_subgroups: Json[list[int]] | None = None,
    delete_subgroups: Json[list[int]] | None = None,
) -> EmptyResult:
    return do_update_members(caller, user_group_id, add or [], delete or [],
                             add_subgroups or [], delete_subgroups or [])


@bp.endpoint("/user_groups/{user_group_id}/subgroups", "POST")
def update_user_group_subgroups(
    caller: Principal, *,
    user_group_id: int,
    add: Json[list[int]] | None = None,
    delete: Json[list[int]] | None = None,
) -> EmptyResult:
    return do_update_members(caller, user_group_id, [], [], add or [], delete or [])


@bp.endpoint("/user_groups/{user_group_id}/members/{user_id}", "GET")
def get_is_user_group_member(caller: Principal, *, user_group_id: int, user_id: int,
                             direct_member_only: bool = False) -> IsUserGroupMemberResult:
    return check_is_user_group_member(caller, user_group_id, user_id, direct_member_only)
