"""Channels: lookup with permission, subscribers, and their API shapes."""
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, cast

from chalicelib.actions.channels.reads.permissions import has_content_access, has_metadata_access
from chalicelib.core.errors import UNKNOWN_CHANNEL_ID, ApiError, ErrorCode, unknown_channel_name
from chalicelib.core.feature_levels import at_advertised_level
from chalicelib.core.principal import Principal
from chalicelib.models.channels import (
    Stream,
    Subscription,
    channel_group_settings,
    get_stream,
    get_subscription,
    name_claim_key,
    stream_id_by_name,
    user_key,
)
from chalicelib.models.read_ahead import ReadAhead, read_ahead
from chalicelib.models.realms import UniqueName
from chalicelib.rules.group_settings import GroupSettingValue
from chalicelib.rules.realm_settings import system_group_id


class StreamDict(TypedDict):
    """A channel as every reader sees it."""

    stream_id: int
    name: str
    description: str
    rendered_description: str
    date_created: int
    creator_id: int | None
    invite_only: bool
    is_web_public: bool
    history_public_to_subscribers: bool
    first_message_id: int | None
    message_retention_days: int | None
    is_archived: bool
    is_announcement_only: bool
    stream_post_policy: int
    stream_weekly_traffic: int | None
    # NotRequired: sent once the advertised level reaches theirs (feature_levels.CHANGES)
    subscriber_count: NotRequired[int]
    folder_id: int | None
    topics_policy: NotRequired[str]
    is_default: NotRequired[bool]   # GET /streams with include_default only
    can_add_subscribers_group: GroupSettingValue
    can_remove_subscribers_group: GroupSettingValue
    can_administer_channel_group: GroupSettingValue
    can_delete_any_message_group: NotRequired[GroupSettingValue]
    can_delete_own_message_group: NotRequired[GroupSettingValue]
    can_move_messages_out_of_channel_group: NotRequired[GroupSettingValue]
    can_move_messages_within_channel_group: NotRequired[GroupSettingValue]
    can_resolve_topics_group: NotRequired[GroupSettingValue]
    can_create_topic_group: NotRequired[GroupSettingValue]
    is_recently_active: bool
    can_send_message_group: GroupSettingValue
    can_subscribe_group: GroupSettingValue


class SubscriptionDict(StreamDict):
    """A channel with the caller's own settings for it (§2.6)."""

    color: str
    is_muted: bool
    in_home_view: bool   # the legacy inverse of is_muted
    pin_to_top: bool
    desktop_notifications: bool | None   # null: the user's default
    audible_notifications: bool | None
    push_notifications: bool | None
    email_notifications: bool | None
    wildcard_mentions_notify: bool | None
    subscribers: NotRequired[list[int]]   # only when asked for
    partial_subscribers: NotRequired[list[int]]   # instead, for large channels (partial)


class StreamCreateEvent(TypedDict):
    type: Literal["stream"]
    op: Literal["create"]
    streams: list[StreamDict]


class DeletedStream(TypedDict):
    stream_id: int


class StreamDeleteEvent(TypedDict):
    type: Literal["stream"]
    op: Literal["delete"]
    streams: list[DeletedStream]
    stream_ids: list[int]


def _check_access(caller: Principal, stream: Stream | None, subscription: Subscription | None,
                  require_content_access: bool) -> None:
    if stream is None:
        raise ApiError(UNKNOWN_CHANNEL_ID)
    subscribed = subscription is not None
    if has_content_access(caller, stream, subscribed):
        return
    if not require_content_access and has_metadata_access(caller, stream, subscribed):
        return
    raise ApiError(UNKNOWN_CHANNEL_ID)


def access_stream_by_id(caller: Principal, stream_id: int, *,
                        require_content_access: bool = True
                        ) -> tuple[Stream, Subscription | None]:
    """The channel and the caller's subscription; missing and forbidden look the same."""
    with read_ahead(channel_access_reads(caller, stream_id)):   # both in one request
        stream = get_stream(caller.realm_id, stream_id)
        subscription = get_subscription(caller.realm_id, caller.user_id,
                                        stream_id) if stream else None
    _check_access(caller, stream, subscription, require_content_access)
    assert stream is not None  # nosec B101 # type narrowing (set above)
    return stream, subscription


def channel_access_reads(caller: Principal, channel: int | str) -> list[ReadAhead]:
    """The items that access to a channel (by id, or by name) reads first, for a
    read ahead (models/read_ahead.py)."""
    if isinstance(channel, int):
        return [(Stream, caller.realm_id, channel),
                (Subscription, user_key(caller.realm_id, caller.user_id), channel)]
    key = name_claim_key(caller.realm_id, channel)
    return [] if key is None else [(UniqueName, *key)]


def channel_already_exists(name: str) -> ApiError:
    """A channel of that name exists: a conflict with the organization's state."""
    return ApiError(f"Channel '{name}' already exists", code=ErrorCode.CHANNEL_ALREADY_EXISTS,
                    http_status=409)


def access_stream_by_name(caller: Principal, name: str, *, require_content_access: bool = True
                          ) -> tuple[Stream, Subscription | None]:
    stream_id = stream_id_by_name(caller.realm_id, name)
    if stream_id is None:
        raise unknown_channel_name(name)
    try:
        return access_stream_by_id(caller, stream_id,
                                   require_content_access=require_content_access)
    except ApiError:
        raise unknown_channel_name(name) from None


def stream_api_dict(stream: Stream) -> StreamDict:
    return at_advertised_level("channel", _stream_dict(stream))


def _stream_dict(stream: Stream) -> StreamDict:
    data: dict[str, Any] = {
        "stream_id": stream.stream_id,
        "name": stream.name,
        "description": stream.description,
        "rendered_description": stream.rendered_description,
        "date_created": stream.date_created,
        "creator_id": stream.creator_id,
        "invite_only": stream.invite_only,
        "is_web_public": stream.is_web_public,
        "history_public_to_subscribers": stream.history_public_to_subscribers,
        "first_message_id": stream.first_message_id,
        "message_retention_days": stream.message_retention_days,
        "is_archived": stream.is_archived,
        "is_announcement_only": False,
        "stream_post_policy": 1,
        "stream_weekly_traffic": None,
        "subscriber_count": stream.subscriber_count,
        "folder_id": stream.folder_id,
        "topics_policy": stream.topics_policy,
        # Recent activity is not tracked: no channel is shown as inactive.
        "is_recently_active": True,
        # Settings of the reference that nothing here changes or reads yet, with what
        # the server does: anyone with access may post; nobody subscribes themself to
        # a channel they cannot see (others add them).
        "can_send_message_group": system_group_id("role:everyone"),
        "can_subscribe_group": system_group_id("role:nobody"),
    }
    data.update(channel_group_settings(stream))
    return cast(StreamDict, data)   # every key of StreamDict, by the two steps above


def stream_create_event(stream: Stream) -> StreamCreateEvent:
    return {"type": "stream", "op": "create", "streams": [stream_api_dict(stream)]}


def stream_deleted_event(stream_id: int) -> StreamDeleteEvent:
    """The channel is gone from its receivers' view (deleted, or no longer visible)."""
    return {"type": "stream", "op": "delete", "streams": [{"stream_id": stream_id}],
            "stream_ids": [stream_id]}


def subscription_api_dict(stream: Stream, subscription: Subscription,
                          subscribers: list[int] | None = None) -> SubscriptionDict:
    # (cast: mypy wants the optional "subscribers" spelled out in a ** literal)
    data = cast(SubscriptionDict, {
        **stream_api_dict(stream),
        "color": subscription.color,
        "is_muted": subscription.is_muted,
        "in_home_view": not subscription.is_muted,
        "pin_to_top": subscription.pin_to_top,
        "desktop_notifications": subscription.desktop_notifications,
        "audible_notifications": subscription.audible_notifications,
        "push_notifications": subscription.push_notifications,
        "email_notifications": subscription.email_notifications,
        "wildcard_mentions_notify": subscription.wildcard_mentions_notify,
    })
    if subscribers is not None:
        data["subscribers"] = subscribers
    return data
