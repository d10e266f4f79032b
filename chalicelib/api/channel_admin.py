"""Channel administration: PATCH /streams/{stream_id} (§4.4) and DELETE (archive)."""
from __future__ import annotations

from typing import Any, Literal

from chalicelib.actions.channels.admin import do_archive_stream, do_update_stream
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import GroupSettingParam, sent_values

bp = ApiBlueprint(__name__)

GroupChange = GroupSettingParam
RetentionDays = int | Literal["realm_default", "unlimited"]
TopicsPolicy = Literal["inherit", "allow_empty_topic", "disable_empty_topic",
                       "empty_topic_only"]
# folder_id=null means "remove from its folder", so "not sent" needs its own marker.
NOT_SENT: Any = object()


@bp.endpoint("/streams/{stream_id}", "PATCH")
def update_stream(
    caller: Principal, *,
    stream_id: int,
    description: str | None = None,
    new_name: str | None = None,
    is_private: bool | None = None,
    is_web_public: bool | None = None,
    history_public_to_subscribers: bool | None = None,
    is_default_stream: bool | None = None,
    message_retention_days: RetentionDays | None = None,
    is_archived: bool | None = None,
    folder_id: int | None = NOT_SENT,
    topics_policy: TopicsPolicy | None = None,
    can_add_subscribers_group: GroupChange | None = None,
    can_remove_subscribers_group: GroupChange | None = None,
    can_administer_channel_group: GroupChange | None = None,
    can_delete_any_message_group: GroupChange | None = None,
    can_delete_own_message_group: GroupChange | None = None,
    can_move_messages_out_of_channel_group: GroupChange | None = None,
) -> EmptyResult:
    # Every other keyword parameter is a property; the ones not sent are None.
    requested = sent_values(locals(), exclude=("caller", "stream_id", "folder_id"))
    if folder_id is not NOT_SENT:
        requested["folder_id"] = folder_id
    return do_update_stream(caller, stream_id, requested)


@bp.endpoint("/streams/{stream_id}", "DELETE")
def archive_stream(caller: Principal, *, stream_id: int) -> EmptyResult:
    return do_archive_stream(caller, stream_id)
