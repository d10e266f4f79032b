"""Who is in what, as readers ask it: a channel's subscribers, whether a user is
subscribed to a channel, a user group's members and subgroups (direct or through
subgroups, however deep; the role-based system groups take their members from roles)."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.channels.reads.permissions import has_metadata_access
from chalicelib.actions.groups.reads.user_groups import (
    get_user_group,
    require_member_admin_or_bot,
)
from chalicelib.actions.users.reads.users import access_user_by_id
from chalicelib.core.principal import Principal
from chalicelib.models.channels import (
    Stream,
    Subscription,
    get_subscription,
    subscriber_ids,
    user_key,
)
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User
from chalicelib.rules.realm_settings import (
    SYSTEM_GROUP_DIRECT_ROLES,
    SYSTEM_GROUP_SUBGROUP,
    SYSTEM_GROUPS,
    system_group_id,
)


class SubscribersResult(TypedDict):
    subscribers: list[int]


class SubscriptionStatusResult(TypedDict):
    is_subscribed: bool


class UserChannelsResult(TypedDict):
    subscribed_channel_ids: list[int]


class GroupMembersResult(TypedDict):
    members: list[int]


class GroupSubgroupsResult(TypedDict):
    subgroups: list[int]


def get_subscribers(caller: Principal, stream_id: int) -> SubscribersResult:
    stream, _ = access_stream_by_id(caller, stream_id, require_content_access=False)
    return {"subscribers": sorted(subscriber_ids(caller.realm_id, stream.stream_id))}


def get_subscription_status(caller: Principal, user_id: int, stream_id: int
                            ) -> SubscriptionStatusResult:
    target = access_user_by_id(caller, user_id)
    access_stream_by_id(caller, stream_id, require_content_access=False)
    return {"is_subscribed": get_subscription(caller.realm_id, target.user_id,
                                              stream_id) is not None}


def get_user_channels(caller: Principal, user_id: int) -> UserChannelsResult:
    """GET /users/{id}/channels (level 440): the channels the user is subscribed to that
    the caller has metadata access to (a Query of each one's subscriptions, a BatchGet)."""
    target = access_user_by_id(caller, user_id)
    theirs = {int(s.stream_id) for s in Subscription.query(
        user_key(caller.realm_id, target.user_id), attributes_to_get=["stream_id", "active"])
        if s.active}
    mine = theirs if target.user_id == caller.user_id else {
        int(s.stream_id) for s in Subscription.query(
            user_key(caller.realm_id, caller.user_id),
            attributes_to_get=["stream_id", "active"]) if s.active}
    streams = Stream.batch_get([(caller.realm_id, i) for i in theirs]) if theirs else []
    return {"subscribed_channel_ids": sorted(
        s.stream_id for s in streams
        if has_metadata_access(caller, s, s.stream_id in mine))}


def _direct_subgroups(group: UserGroup) -> list[int]:
    if group.is_system_group:
        name = SYSTEM_GROUPS[group.group_id - 1]
        return ([system_group_id(SYSTEM_GROUP_SUBGROUP[name])]
                if name in SYSTEM_GROUP_SUBGROUP else [])
    return sorted(int(g) for g in group.direct_subgroups or ())


def _descendants(realm_id: int, group: UserGroup) -> list[UserGroup]:
    """Every group below this one (one GetItem per group; cycles cannot exist)."""
    found: dict[int, UserGroup] = {}
    pending = _direct_subgroups(group)
    while pending:
        group_id = pending.pop()
        if group_id in found or group_id == group.group_id:
            continue
        found[group_id] = get_user_group(realm_id, group_id)
        pending += _direct_subgroups(found[group_id])
    return [found[g] for g in sorted(found)]


def get_group_members(caller: Principal, group_id: int, direct_member_only: bool
                      ) -> GroupMembersResult:
    require_member_admin_or_bot(caller)
    group = get_user_group(caller.realm_id, group_id)
    groups = [group] if direct_member_only else [group, *_descendants(caller.realm_id, group)]
    members = {int(u) for g in groups if not g.is_system_group for u in g.direct_members or ()}
    roles = {role for g in groups if g.is_system_group
             for role in SYSTEM_GROUP_DIRECT_ROLES[SYSTEM_GROUPS[g.group_id - 1]]}
    if roles:   # role-based: the realm's active users of those roles (one Query)
        members |= {u.user_id for u in User.query(caller.realm_id)
                    if u.is_active and int(u.role) in roles}
    return {"members": sorted(members)}


def get_group_subgroups(caller: Principal, group_id: int, direct_subgroup_only: bool
                        ) -> GroupSubgroupsResult:
    require_member_admin_or_bot(caller)
    group = get_user_group(caller.realm_id, group_id)
    if direct_subgroup_only:
        return {"subgroups": _direct_subgroups(group)}
    return {"subgroups": [g.group_id for g in _descendants(caller.realm_id, group)]}
