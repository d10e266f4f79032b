"""Channel administration: PATCH /streams/{stream_id} (§4.4) and DELETE (archive)."""
from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from chalicelib.actions.channels.admin import do_archive_stream
from chalicelib.actions.workflows.channel_event_notices import update_stream_with_notices
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import GroupSettingParam, changes_of

bp = ApiBlueprint(__name__)

GroupChange = GroupSettingParam
RetentionDays = int | Literal["realm_default", "unlimited"]
TopicsPolicy = Literal["inherit", "allow_empty_topic", "disable_empty_topic",
                       "empty_topic_only"]
# folder_id=null means "remove from its folder", so "not sent" needs its own marker.
NOT_SENT: Any = object()


class ChannelPropertiesPatch(TypedDict, total=False):
    """The channel properties PATCH /streams/{stream_id} changes (besides folder_id,
    where null is a value): each an optional parameter."""

    description: str
    new_name: str
    is_private: bool
    is_web_public: bool
    history_public_to_subscribers: bool
    is_default_stream: bool
    message_retention_days: RetentionDays
    is_archived: bool
    topics_policy: TopicsPolicy
    can_add_subscribers_group: GroupChange
    can_remove_subscribers_group: GroupChange
    can_administer_channel_group: GroupChange
    can_delete_any_message_group: GroupChange
    can_delete_own_message_group: GroupChange
    can_move_messages_out_of_channel_group: GroupChange
    can_move_messages_within_channel_group: GroupChange
    can_resolve_topics_group: GroupChange
    can_create_topic_group: GroupChange


@bp.endpoint("/streams/{stream_id}", "PATCH")
def update_stream(
    caller: Principal, *,
    stream_id: int,
    folder_id: int | None = NOT_SENT,
    properties: Annotated[dict[str, Any], changes_of(ChannelPropertiesPatch)],
) -> EmptyResult:
    requested = dict(properties)
    if folder_id is not NOT_SENT:
        requested["folder_id"] = folder_id
    return update_stream_with_notices(caller, stream_id, requested)


@bp.endpoint("/streams/{stream_id}", "DELETE")
def archive_stream(caller: Principal, *, stream_id: int) -> EmptyResult:
    return do_archive_stream(caller, stream_id)
