"""Members and subgroups of user groups (§4.13, §4.14): who may change them, no cycles,
and membership through nested subgroups.

A request is one transaction: the group's new member and subgroup sets, conditioned on
the version that was read (so its events say exactly what changed), each added or
removed user's reverse index (an added user must still be active), a check that each
added subgroup is still active, and, when subgroups are added, the realm's subgroup
graph version (so two concurrent additions cannot close a cycle). A writer that lost a
race re-reads and tries again. A request naming more users than one transaction holds
is written in consecutive transactions (group_membership.py) and is idempotent: users
already in (or already out) are skipped rather than refused, so a client retrying it
after a timeout completes the rest.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypedDict

from pynamodb.transactions import TransactWrite

from chalicelib.actions.groups.membership import (
    ATTEMPTS,
    EVERYONE,
    USERS_PER_TRANSACTION,
    check_users,
    write_members,
)
from chalicelib.actions.groups.reads.settings import MAX_SUBGROUP_DEPTH, user_has_group_setting
from chalicelib.actions.groups.reads.user_groups import (
    get_user_group,
    require_member_admin_or_bot,
    require_member_or_admin,
)
from chalicelib.actions.groups.user_groups import (
    MAX_SUBGROUPS_PER_REQUEST,
    check_mutable,
    check_subgroups,
    has_group_permission,
    require,
)
from chalicelib.core.errors import UNKNOWN_USER, ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event
from chalicelib.models.races import LostRace, retry_lost_races
from chalicelib.models.realms import Realm, get_realm
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User
from chalicelib.rules.group_settings import GroupSettingValue, is_system_group
from chalicelib.rules.realm_settings import SYSTEM_GROUP_DIRECT_ROLES, SYSTEM_GROUPS


class UserGroupAddSubgroupsEvent(TypedDict):
    type: Literal["user_group"]
    op: Literal["add_subgroups"]
    group_id: int
    direct_subgroup_ids: list[int]


class UserGroupRemoveSubgroupsEvent(TypedDict):
    type: Literal["user_group"]
    op: Literal["remove_subgroups"]
    group_id: int
    direct_subgroup_ids: list[int]


class IsUserGroupMemberResult(TypedDict):
    is_user_group_member: bool


def do_update_members(caller: Principal, group_id: int, add: list[int], delete: list[int],
                      add_subgroups: list[int], delete_subgroups: list[int]) -> EmptyResult:
    """POST /user_groups/{id}/members (§4.13), also serving §4.14 for subgroups."""
    require_member_or_admin(caller)
    if not (add or delete or add_subgroups or delete_subgroups):
        raise ApiError("Nothing to do. Specify at least one of 'add', 'delete', "
                       "'add_subgroups' or 'delete_subgroups'.")
    if len(set(add_subgroups)) > MAX_SUBGROUPS_PER_REQUEST:
        raise ApiError(f"Too many subgroups: at most {MAX_SUBGROUPS_PER_REQUEST} at a time.")
    # Whether the request is split (and so idempotent) follows from the request alone, so
    # a retry of it is treated as the first attempt was.
    split = len(set(add)) + len(set(delete)) > _first_room(add_subgroups, delete_subgroups)
    def attempt() -> EmptyResult:
        group = get_user_group(caller.realm_id, group_id)
        # Members and subgroups of a deactivated group may change from level 391 on.
        check_mutable(group, deactivated_ok=level_reached(391))
        realm = get_realm(caller.realm_id)
        _check_permissions(caller, realm, group, add, delete, add_subgroups, delete_subgroups)
        _check_changes(group, add, delete, add_subgroups, delete_subgroups, skip_done=split)
        if add:   # again after a lost race: one may have been deactivated meanwhile
            check_users(caller.realm_id, add)
        if add_subgroups:
            check_subgroups(caller.realm_id, add_subgroups)
            _check_no_cycle(caller.realm_id, group_id, add_subgroups)
        if not _write(realm, group, add, delete, add_subgroups, delete_subgroups):
            raise LostRace()
        return {}

    return retry_lost_races(attempt, conflict="The user group changed meanwhile; reload and "
                            "try again.", attempts=ATTEMPTS)


def _first_room(add_subgroups: list[int], delete_subgroups: list[int]) -> int:
    """How many users fit in the first transaction beside the subgroup changes (a check
    per added subgroup, the realm's graph version and an event for each kind)."""
    added = len(set(add_subgroups))
    return USERS_PER_TRANSACTION - added - (2 if added else 0) - (1 if delete_subgroups else 0)


def can_add_members_to_group(caller: Principal, realm: Realm, group: UserGroup) -> bool:
    """Whether the caller may add others to the group (also for invitations, §4.8)."""
    return not group.is_system_group and has_group_permission(
        caller, realm, group, ["can_add_members_group", "can_manage_group"])


def _direct_member(group: UserGroup, user: User) -> bool:
    if group.is_system_group:
        return int(user.role) in SYSTEM_GROUP_DIRECT_ROLES[SYSTEM_GROUPS[group.group_id - 1]]
    return user.user_id in (group.direct_members or ())


def check_is_user_group_member(caller: Principal, group_id: int, user_id: int,
                               direct_member_only: bool) -> IsUserGroupMemberResult:
    require_member_admin_or_bot(caller)
    group = get_user_group(caller.realm_id, group_id)
    user = User.get_or_none(caller.realm_id, user_id)
    if user is None:
        raise ApiError(UNKNOWN_USER)
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
        require(has_group_permission(caller, realm, group, settings))


def _check_changes(group: UserGroup, add: list[int], delete: list[int],
                   add_subgroups: list[int], delete_subgroups: list[int],
                   skip_done: bool) -> None:
    """The reference's refusals of changes that are already made; a split request skips
    them instead (a retry finds its earlier transactions done)."""
    if skip_done:
        return
    members = {int(u) for u in group.direct_members or ()}
    subgroups = {int(g) for g in group.direct_subgroups or ()}
    for user_id in add:
        if user_id in members:
            raise ApiError(f"User {user_id} already belongs to this group")
    for user_id in delete:
        if user_id not in members | set(add):
            raise ApiError(f"User {user_id} does not belong to this group")
    for subgroup_id in add_subgroups:
        if subgroup_id in subgroups:
            raise ApiError(f"Group {subgroup_id} is already a subgroup of this group.")
    for subgroup_id in delete_subgroups:
        if subgroup_id not in subgroups | set(add_subgroups):
            raise ApiError(f"Group {subgroup_id} is not one of this group's subgroups.")


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
                    for s in g.direct_subgroups or ()} - seen if wanted else set()


def _write(realm: Realm, group: UserGroup, add: list[int], delete: list[int],
           add_subgroups: list[int], delete_subgroups: list[int]) -> bool:
    """The changes still to make, with their events; False when a concurrent change won
    (what an earlier batch of a split request wrote stays)."""
    realm_id, group_id = realm.realm_id, group.group_id
    members = {int(u) for u in group.direct_members or ()}
    subgroups = {int(g) for g in group.direct_subgroups or ()}
    added = sorted(set(add) - members - set(delete))
    removed = sorted(set(delete) & members)
    subgroups_added = sorted(set(add_subgroups) - subgroups - set(delete_subgroups))
    subgroups_removed = sorted(set(delete_subgroups) & subgroups)
    if not (added or removed or subgroups_added or subgroups_removed):
        return True   # nothing left to do (a retried request that had completed)

    def subgroup_writes(tx: TransactWrite, actions: list[Any]) -> None:
        new = (subgroups | set(subgroups_added)) - set(subgroups_removed)
        if new != subgroups:
            actions.append(UserGroup.direct_subgroups.set(new) if new
                           else UserGroup.direct_subgroups.remove())
        for subgroup_id in subgroups_added:
            tx.condition_check(UserGroup, realm_id, subgroup_id,
                               condition=UserGroup.deactivated == False)
        if subgroups_added:
            graph = realm.group_graph_version
            tx.update(Realm(realm_id), actions=[Realm.group_graph_version.add(1)],
                      condition=Realm.group_graph_version.does_not_exist()
                      if graph is None else Realm.group_graph_version == graph)
        if subgroups_added:
            added: UserGroupAddSubgroupsEvent = {
                "type": "user_group", "op": "add_subgroups", "group_id": group_id,
                "direct_subgroup_ids": subgroups_added}
            add_event(tx, realm_id, added, EVERYONE)
        if subgroups_removed:
            removed: UserGroupRemoveSubgroupsEvent = {
                "type": "user_group", "op": "remove_subgroups", "group_id": group_id,
                "direct_subgroup_ids": subgroups_removed}
            add_event(tx, realm_id, removed, EVERYONE)

    return write_members(group, added, removed, _first_room(subgroups_added, subgroups_removed),
                         first=subgroup_writes, deactivated_ok=level_reached(391))
