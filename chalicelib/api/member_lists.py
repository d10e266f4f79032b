"""Membership reads and the channel email address: GET /streams/{id}/members,
GET /users/{id}/channels, GET /users/{id}/subscriptions/{stream_id}, GET /user_groups/{id}/members and
/subgroups, GET /streams/{id}/email_address, and PATCH /users/me/subscriptions."""
from __future__ import annotations

from typing import Any

from chalicelib.actions.channels import member_lists as actions
from chalicelib.actions.channels import subscription_batch
from chalicelib.actions.channels.member_lists import (
    GroupMembersResult,
    GroupSubgroupsResult,
    SubscribersResult,
    SubscriptionStatusResult,
    UserChannelsResult,
)
from chalicelib.actions.channels.subscription_batch import UpdateSubscriptionsResult
from chalicelib.actions.workflows.unconfigured import ChannelEmailResult, get_channel_email
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/streams/{stream_id}/members", "GET")
def get_subscribers(caller: Principal, *, stream_id: int) -> SubscribersResult:
    return actions.get_subscribers(caller, stream_id)


@bp.endpoint("/users/{user_id}/channels", "GET")
def get_user_channels(caller: Principal, *, user_id: int) -> UserChannelsResult:
    return actions.get_user_channels(caller, user_id)


@bp.endpoint("/users/{user_id}/subscriptions/{stream_id}", "GET")
def get_subscription_status(caller: Principal, *, user_id: int, stream_id: int
                            ) -> SubscriptionStatusResult:
    return actions.get_subscription_status(caller, user_id, stream_id)


@bp.endpoint("/user_groups/{user_group_id}/members", "GET")
def get_user_group_members(caller: Principal, *, user_group_id: int,
                           direct_member_only: bool = False) -> GroupMembersResult:
    return actions.get_group_members(caller, user_group_id, direct_member_only)


@bp.endpoint("/user_groups/{user_group_id}/subgroups", "GET")
def get_user_group_subgroups(caller: Principal, *, user_group_id: int,
                             direct_subgroup_only: bool = False) -> GroupSubgroupsResult:
    return actions.get_group_subgroups(caller, user_group_id, direct_subgroup_only)


@bp.endpoint("/streams/{stream_id}/email_address", "GET")
def get_stream_email_address(caller: Principal, *, stream_id: int,
                             sender_id: int | None = None) -> ChannelEmailResult:
    return get_channel_email(caller, stream_id, sender_id)


@bp.endpoint("/users/me/subscriptions", "PATCH")
def update_subscriptions(caller: Principal, *,
                         add: Json[list[dict[str, Any]]] | None = None,
                         delete: Json[list[str]] | None = None
                         ) -> UpdateSubscriptionsResult:
    return subscription_batch.update_subscriptions(caller, add or [], delete or [])
