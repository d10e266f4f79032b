"""PATCH /realm: organization settings that govern editing, moving and deleting messages."""
from __future__ import annotations

from typing import Literal

from chalicelib.actions.realm.settings import do_update_realm
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import GroupSettingParam, sent_values

bp = ApiBlueprint(__name__)

TimeLimit = int | Literal["unlimited"]
GroupChange = GroupSettingParam
EditHistoryPolicy = Literal["all", "moves", "none"]


@bp.endpoint("/realm", "PATCH")
def update_realm(
    caller: Principal, *,
    allow_message_editing: bool | None = None,
    message_content_edit_limit_seconds: TimeLimit | None = None,
    move_messages_within_stream_limit_seconds: TimeLimit | None = None,
    move_messages_between_streams_limit_seconds: TimeLimit | None = None,
    message_content_delete_limit_seconds: TimeLimit | None = None,
    message_edit_history_visibility_policy: EditHistoryPolicy | None = None,
    empty_topic_display_name: str | None = None,
    topics_policy: str | None = None,
    can_resolve_topics_group: GroupChange | None = None,
    can_move_messages_between_channels_group: GroupChange | None = None,
    can_move_messages_between_topics_group: GroupChange | None = None,
    can_access_all_users_group: GroupChange | None = None,
    can_mention_many_users_group: GroupChange | None = None,
    can_invite_users_group: GroupChange | None = None,
    create_multiuse_invite_group: GroupChange | None = None,
    can_add_subscribers_group: GroupChange | None = None,
    can_delete_any_message_group: GroupChange | None = None,
    can_delete_own_message_group: GroupChange | None = None,
) -> EmptyResult:
    # Every keyword parameter is a setting; the ones not sent are None.
    return do_update_realm(caller, sent_values(locals()))
