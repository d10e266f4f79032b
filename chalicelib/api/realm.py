"""PATCH /realm: organization settings that govern editing, moving and deleting messages."""
from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from chalicelib.actions.workflows.realm_update import do_update_realm
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import GroupSettingParam, changes_of

bp = ApiBlueprint(__name__)

TimeLimit = int | Literal["unlimited"]
GroupChange = GroupSettingParam
EditHistoryPolicy = Literal["all", "moves", "none"]


class RealmSettingsPatch(TypedDict, total=False):
    """The organization settings PATCH /realm changes: each key an optional parameter."""

    description: str
    allow_message_editing: bool
    message_content_edit_limit_seconds: TimeLimit
    move_messages_within_stream_limit_seconds: TimeLimit
    move_messages_between_streams_limit_seconds: TimeLimit
    message_content_delete_limit_seconds: TimeLimit
    message_edit_history_visibility_policy: EditHistoryPolicy
    empty_topic_display_name: str
    topics_policy: str
    enable_read_receipts: bool
    moderation_request_channel_id: int
    require_e2ee_push_notifications: bool
    welcome_message_custom_text: str
    send_channel_events_messages: bool
    media_preview_size: int
    default_avatar_source: Literal["G", "J"]   # level 456
    can_resolve_topics_group: GroupChange
    can_move_messages_between_channels_group: GroupChange
    can_move_messages_between_topics_group: GroupChange
    can_access_all_users_group: GroupChange
    can_mention_many_users_group: GroupChange
    can_invite_users_group: GroupChange
    create_multiuse_invite_group: GroupChange
    can_add_subscribers_group: GroupChange
    can_delete_any_message_group: GroupChange
    can_delete_own_message_group: GroupChange
    can_set_topics_policy_group: GroupChange
    can_set_delete_message_policy_group: GroupChange
    workplace_users_group: GroupChange


@bp.endpoint("/realm", "PATCH")
def update_realm(
    caller: Principal, *,
    settings: Annotated[dict[str, Any], changes_of(RealmSettingsPatch)],
) -> EmptyResult:
    return do_update_realm(caller, settings)
