"""POST /register's channels: the caller's subscriptions, past subscriptions and the
channels they could join (`subscription`), the channels they can see (`stream`), and
the organization's default channels (`default_streams`)."""
from __future__ import annotations

from typing import NotRequired, TypedDict, TypeVar, cast

from chalicelib.actions.channels.reads.channels import (
    StreamDict,
    SubscriptionDict,
    subscription_api_dict,
)
from chalicelib.actions.channels.reads.permissions import (
    has_metadata_access,
    realm_default_stream_ids,
)
from chalicelib.actions.channels.reads.subscribers import SubscriberList, subscriber_lists
from chalicelib.models.channels import Stream, Subscription
from chalicelib.registration.state.context import StateContext
from chalicelib.rules.channel_access import readable_unsubscribed


class NeverSubscribedDict(StreamDict):
    """A visible channel the caller never joined; subscribers as include_subscribers asks."""

    subscribers: NotRequired[list[int]]
    partial_subscribers: NotRequired[list[int]]


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


def subscription_state(ctx: StateContext) -> SubscriptionState:
    """The caller's subscriptions (one Query) and the realm's channels (one Query), with
    the shown channels' subscribers when asked for (a Query each, side by side)."""
    current: list[tuple[Stream, Subscription]] = []
    former: list[tuple[Stream, Subscription]] = []
    for subscription in ctx.subscriptions:
        stream = ctx.streams.get(subscription.stream_id)
        if stream is None or not _shown(ctx, stream):
            continue
        if subscription.active:
            current.append((stream, subscription))
        elif has_metadata_access(ctx.caller, stream, False):
            former.append((stream, subscription))
    known = {s.stream_id for s in ctx.subscriptions}
    never = [stream for stream in ctx.streams.values()
             if stream.stream_id not in known and _shown(ctx, stream)
             and has_metadata_access(ctx.caller, stream, False)]
    lists = subscriber_lists(ctx.caller.realm_id,
                             [*(s for s, _ in current + former), *never],
                             ctx.include_subscribers)
    return {"subscriptions": [_with_subscribers(subscription_api_dict(s, sub), lists)
                              for s, sub in current],
            "unsubscribed": [_with_subscribers(subscription_api_dict(s, sub), lists)
                             for s, sub in former],
            "never_subscribed": [_with_subscribers(cast(NeverSubscribedDict,
                                                        ctx.stream_dict(s)), lists)
                                 for s in never]}


_Shown = TypeVar("_Shown", SubscriptionDict, NeverSubscribedDict)


def _with_subscribers(data: _Shown, lists: dict[int, SubscriberList]) -> _Shown:
    found = lists.get(data["stream_id"])
    if found is not None:
        data[found.key] = found.user_ids
    return data


def stream_state(ctx: StateContext) -> StreamState:
    """As the reference: the public channels (not for guests), web-public and subscribed
    ones, and for administrators every channel; archived ones only for clients with the
    archived_channels capability."""
    subscribed = {s.stream_id for s in ctx.subscriptions if s.active}
    caller = ctx.caller
    visible = [
        ctx.stream_dict(stream) for stream in ctx.streams.values()
        if _shown(ctx, stream) and (
            caller.is_admin or stream.stream_id in subscribed
            or readable_unsubscribed(caller.role, stream))]
    return {"streams": visible}


def default_streams_state(ctx: StateContext) -> DefaultStreamsState:
    # As the reference: guests are never subscribed by default, so they get none.
    ids = [] if ctx.caller.is_guest else sorted(realm_default_stream_ids(ctx.realm))
    return {"realm_default_streams": ids}
