"""POST /register's channels: the caller's subscriptions, past subscriptions and the
channels they could join (`subscription`), the channels they can see (`stream`), and
the organization's default channels (`default_streams`)."""
from __future__ import annotations

from typing import NotRequired, TypedDict, cast

from chalicelib.actions.channels.reads.channels import (
    StreamDict,
    SubscriptionDict,
    stream_api_dict,
    subscription_api_dict,
)
from chalicelib.actions.channels.reads.permissions import (
    has_metadata_access,
    realm_default_stream_ids,
)
from chalicelib.models.channels import Stream, subscriber_ids
from chalicelib.registration.state.context import StateContext


class NeverSubscribedDict(StreamDict):
    """A visible channel the caller never joined; subscribers as include_subscribers asks."""

    subscribers: NotRequired[list[int]]


class SubscriptionState(TypedDict, total=False):
    """Present when `subscription` is among the fetch types (then every key is)."""

    subscriptions: list[SubscriptionDict]
    unsubscribed: list[SubscriptionDict]        # channels the caller left, still visible
    never_subscribed: list[NeverSubscribedDict]   # visible channels never joined


class StreamState(TypedDict, total=False):
    """Present when `stream` is among the fetch types."""

    streams: list[StreamDict]


class DefaultStreamsState(TypedDict, total=False):
    """Present when `default_streams` is among the fetch types."""

    realm_default_streams: list[int]


def _shown(ctx: StateContext, stream: Stream) -> bool:
    # Clients without the archived_channels capability never hear of archived channels.
    return not stream.is_archived or ctx.capable("archived_channels")


def _subscribers(ctx: StateContext, stream_id: int) -> list[int] | None:
    """A Query per channel, only when the client asked for subscribers."""
    return subscriber_ids(ctx.caller.realm_id, stream_id) if ctx.include_subscribers else None


def subscription_state(ctx: StateContext) -> SubscriptionState:
    """The caller's subscriptions (one Query) and the realm's channels (one Query)."""
    current, former = [], []
    for subscription in ctx.subscriptions:
        stream = ctx.streams.get(subscription.stream_id)
        if stream is None or not _shown(ctx, stream):
            continue
        if subscription.active:
            current.append(subscription_api_dict(
                stream, subscription, _subscribers(ctx, stream.stream_id)))
        elif has_metadata_access(ctx.caller, stream, False):
            former.append(subscription_api_dict(
                stream, subscription, _subscribers(ctx, stream.stream_id)))
    known = {s.stream_id for s in ctx.subscriptions}
    never = []
    for stream in ctx.streams.values():
        if stream.stream_id in known or not _shown(ctx, stream):
            continue
        if has_metadata_access(ctx.caller, stream, False):
            data = cast(NeverSubscribedDict, stream_api_dict(stream))
            subscribers = _subscribers(ctx, stream.stream_id)
            if subscribers is not None:
                data["subscribers"] = subscribers
            never.append(data)
    return {"subscriptions": current, "unsubscribed": former, "never_subscribed": never}


def stream_state(ctx: StateContext) -> StreamState:
    """As the reference: the public channels (not for guests), web-public and subscribed
    ones, and for administrators every channel; archived ones only for clients with the
    archived_channels capability."""
    subscribed = {s.stream_id for s in ctx.subscriptions if s.active}
    caller = ctx.caller
    visible = [
        stream_api_dict(stream) for stream in ctx.streams.values()
        if _shown(ctx, stream) and (
            caller.is_admin or stream.stream_id in subscribed or stream.is_web_public
            or (not stream.invite_only and not caller.is_guest))]
    return {"streams": visible}


def default_streams_state(ctx: StateContext) -> DefaultStreamsState:
    # As the reference: guests are never subscribed by default, so they get none.
    ids = [] if ctx.caller.is_guest else sorted(realm_default_stream_ids(ctx.realm))
    return {"realm_default_streams": ids}
