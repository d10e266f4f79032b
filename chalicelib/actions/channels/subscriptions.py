"""Subscribing (creating channels on the way), listing subscriptions and channels."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.channels.access_events import GuestAccess
from chalicelib.actions.channels.add_subscribers import NewChannel, do_add_subscribers
from chalicelib.actions.channels.principals import check_subscription_count, principal_users
from chalicelib.actions.channels.reads.channels import (
    StreamDict,
    SubscriptionDict,
    access_stream_by_id,
    channel_access_reads,
    stream_api_dict,
    subscription_api_dict,
)
from chalicelib.actions.channels.reads.permissions import can_add_subscribers, viewers_audience
from chalicelib.actions.channels.reads.subscribers import IncludeSubscribers, subscriber_lists
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.base import is_condition_failure
from chalicelib.models.channels import (
    Stream,
    Subscription,
    get_stream,
    stream_id_by_name,
    user_key,
)
from chalicelib.models.ids import allocate_id, allocate_ids, realm_scope
from chalicelib.models.rate_limits import take_allowance
from chalicelib.models.read_ahead import read_ahead
from chalicelib.models.realms import Realm, get_realm
from chalicelib.models.users import User
from chalicelib.rules.channel_access import reads_public_channels, visibility
from chalicelib.rules.markdown import render_markdown
from chalicelib.rules.names import check_stream_name
from chalicelib.rules.rate_limits import CHANNELS_BY_USER
from chalicelib.rules.timeutil import now_seconds

# At most this many channels a request, as unsubscribing (actions/channels/unsubscribe.py):
# each channel is written on its own (subscriptions: principals.check_subscription_count).
MAX_CHANNELS_PER_REQUEST = 100
MAX_READ_AHEAD = 100   # keys of one batched read (BatchGetItem's limit)
# At most this many new subscribers hear of it from the notification bot
# (send_new_subscription_messages, level 397), as the reference limits it.
MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100


class SubscribeResult(TypedDict):
    """By user id (a string key, as JSON has them; feature level 289): the names of the
    channels subscribed now, and of those already."""

    subscribed: dict[str, list[str]]
    already_subscribed: dict[str, list[str]]
    unauthorized: NotRequired[list[str]]   # with authorization_errors_fatal false
    # With send_new_subscription_messages (level 397; workflows/subscription_notices.py)
    new_subscription_messages_sent: NotRequired[bool]


def new_channel(caller: Principal, name: str, description: str, invite_only: bool,
                history_public: bool, stream_id: int | None = None) -> NewChannel:
    """A channel to create (checked by plan_new_channels); nothing is written yet."""
    stream = Stream(caller.realm_id, stream_id or allocate_id(caller.realm_id, "stream"),
                    name=name, description=description,
                    rendered_description=render_markdown(description),
                    invite_only=invite_only,
                    history_public_to_subscribers=history_public or not invite_only,
                    date_created=now_seconds(), creator_id=caller.user_id)
    # Whoever may know of it: for a private one its first subscribers (written with the
    # event), the organization administrators and its groups (the creator, by default).
    return NewChannel(stream, viewers_audience(stream.stream_id, visibility(stream)))


def check_new_channels(caller: Principal, descriptions: list[str]) -> None:
    """Whether the caller may create these channels now: before anything is written,
    and counted against the caller's allowance (CHANNELS_BY_USER)."""
    if caller.is_guest:
        raise ApiError("Insufficient permission: guests cannot create channels.")
    for description in descriptions:
        if len(description) > config.MAX_STREAM_DESCRIPTION_LENGTH:
            raise ApiError("Channel description too long (limit: "
                           f"{config.MAX_STREAM_DESCRIPTION_LENGTH} characters).")
    take_allowance(CHANNELS_BY_USER, caller.realm_id, caller.user_id, len(descriptions),
                   "new channels")


def create_channel(caller: Principal, channel: NewChannel, users: list[User],
                   guests: GuestAccess | None = None) -> tuple[Stream, set[int]]:
    """Creates the channel with these subscribers; if its name was taken meanwhile, the
    channel of that name and nobody subscribed (the caller decides what follows)."""
    try:
        return channel.stream, do_add_subscribers(caller.realm_id, channel.stream, users,
                                                  creating=channel, guests=guests)
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        existing = stream_id_by_name(caller.realm_id, channel.stream.name)
        found = get_stream(caller.realm_id, existing) if existing else None
        if found is None:
            raise
        return found, set()


@dataclass
class _Entry:
    """One channel of a subscribe request, as planned before anything is written."""

    name: str
    description: str
    stream: Stream | None = None          # an existing channel, once access is checked
    creating: NewChannel | None = None    # a new one


def check_subscribe(caller: Principal, subscriptions: list[dict[str, Any]],
                    principals: list[int] | list[str] | None, invite_only: bool,
                    history_public_to_subscribers: bool | None,
                    authorization_errors_fatal: bool,
                    created: set[str] | None = None) -> SubscribeResult:
    """Everything is read and checked first (names, access, permissions, the maxima and
    the caller's allowance for new channels), so a refused request changes nothing;
    then each channel is written in transactions complete on their own, so one that
    fails part way is finished by sending it again (docs/rate-limits.md).
    `created` collects the names of the channels this request created."""
    if not subscriptions:
        raise ApiError("Nothing to do. Specify at least one channel.")
    if len(subscriptions) > MAX_CHANNELS_PER_REQUEST:
        raise ApiError(f"Too many channels: at most {MAX_CHANNELS_PER_REQUEST} at a time.")
    entries = _entries(subscriptions)
    users = principal_users(caller, principals)
    check_subscription_count(len(entries), len(users))
    subscribing_others = any(u.user_id != caller.user_id for u in users)
    realm = get_realm(caller.realm_id) if subscribing_others else None
    unauthorized = _plan(caller, entries, realm, authorization_errors_fatal)
    new = [e for e in entries if e.stream is None and e.name not in unauthorized]
    if new:
        check_new_channels(caller, [e.description for e in new])
        ids = allocate_ids(realm_scope(caller.realm_id), "stream", len(new))
        for entry, stream_id in zip(new, ids, strict=True):
            entry.creating = new_channel(caller, entry.name, entry.description, invite_only,
                                         bool(history_public_to_subscribers), stream_id)
    subscribed: dict[str, list[str]] = {}
    already: dict[str, list[str]] = {}
    guests = GuestAccess(caller.realm_id, realm)   # read once, if a guest may be involved
    for entry in entries:
        if entry.creating is not None:
            stream, added = create_channel(caller, entry.creating, users, guests)
            if stream is not entry.creating.stream:   # created by another request meanwhile
                try:
                    stream = _accessible(caller, entry.name, stream.stream_id, realm)
                except _Unauthorized:
                    raise ApiError(f"Channel {entry.name} does not exist, or you "
                                   "cannot see it.") from None
                added = do_add_subscribers(caller.realm_id, stream, users, guests=guests)
            elif created is not None:
                created.add(stream.name)
        elif entry.stream is not None:
            stream = entry.stream
            added = do_add_subscribers(caller.realm_id, stream, users, guests=guests)
        else:
            continue
        for user in users:
            target = subscribed if user.user_id in added else already
            target.setdefault(str(user.user_id), []).append(stream.name)
    result: SubscribeResult = {"subscribed": subscribed, "already_subscribed": already}
    if unauthorized:
        result["unauthorized"] = unauthorized
    return result


def _entries(subscriptions: list[dict[str, Any]]) -> list[_Entry]:
    """The requested channels, checked and each once (names match case-insensitively)."""
    entries: dict[str, _Entry] = {}
    for entry in subscriptions:
        if not isinstance(entry, dict) or "name" not in entry:
            raise ApiError("Each subscription needs a 'name'.")
        name = check_stream_name(entry["name"])
        entries.setdefault(name.lower(), _Entry(name, str(entry.get("description", ""))))
    return list(entries.values())


def _plan(caller: Principal, entries: list[_Entry], realm: Realm | None,
          authorization_errors_fatal: bool) -> list[str]:
    """Finds the existing channels and checks the caller's access to each (reads in
    batches); the names the caller may not subscribe to, when that is not fatal."""
    unauthorized: list[str] = []
    for start in range(0, len(entries), MAX_READ_AHEAD):
        block = entries[start:start + MAX_READ_AHEAD]
        with read_ahead([r for e in block for r in channel_access_reads(caller, e.name)]):
            ids = [stream_id_by_name(caller.realm_id, e.name) for e in block]
        found = [(e, i) for e, i in zip(block, ids, strict=True) if i is not None]
        per_channel = MAX_READ_AHEAD // 2   # the channel and the caller's subscription
        for first in range(0, len(found), per_channel):
            part = found[first:first + per_channel]
            with read_ahead([r for _, i in part for r in channel_access_reads(caller, i)]):
                for entry, stream_id in part:
                    try:
                        entry.stream = _accessible(caller, entry.name, stream_id, realm)
                    except _Unauthorized:
                        if authorization_errors_fatal:
                            raise ApiError(f"Channel {entry.name} does not exist, or "
                                           "you cannot see it.") from None
                        unauthorized.append(entry.name)
    return unauthorized


class _Unauthorized(Exception):
    """The caller may not subscribe to this channel (answered as the request asks)."""


def _accessible(caller: Principal, name: str, stream_id: int, realm: Realm | None) -> Stream:
    """The channel, if the caller may subscribe to it (and others, given `realm`)."""
    try:
        stream, subscription = access_stream_by_id(
            caller, stream_id, require_content_access=not caller.is_admin)
    except ApiError:
        raise _Unauthorized() from None
    if stream.is_archived:
        raise _Unauthorized()
    if realm is not None and not can_add_subscribers(caller, stream,
                                                     subscription is not None, realm):
        raise ApiError(f"Insufficient permission to subscribe other users to '{name}'.")
    return stream


def get_subscriptions(caller: Principal, include_subscribers: IncludeSubscribers
                      ) -> list[SubscriptionDict]:
    subscriptions = [s for s in Subscription.query(user_key(caller.realm_id, caller.user_id))
                     if s.active]
    streams = {s.stream_id: s for s in Stream.batch_get(
        [(caller.realm_id, sub.stream_id) for sub in subscriptions])}
    lists = subscriber_lists(caller.realm_id, streams.values(), include_subscribers)
    shown = []
    for sub in subscriptions:
        if sub.stream_id in streams:
            data = subscription_api_dict(streams[sub.stream_id], sub)
            if sub.stream_id in lists:
                found = lists[sub.stream_id]
                data[found.key] = found.user_ids
            shown.append(data)
    return shown


def get_streams(caller: Principal, include_public: bool, include_subscribed: bool,
                include_all_active: bool, include_default: bool = False,
                exclude_archived: bool = True, include_web_public: bool = False
                ) -> list[StreamDict]:
    if include_all_active and not caller.is_admin:
        raise ApiError("You are not allowed to ask this about that user")
    subscribed = {s.stream_id for s in Subscription.query(
        user_key(caller.realm_id, caller.user_id)) if s.active}
    # Listing channels is bulk by nature: one Query over the realm's channels.
    result: list[StreamDict] = []
    for stream in Stream.query(caller.realm_id):
        visible = (include_all_active
                   or (include_subscribed and stream.stream_id in subscribed)
                   or (include_public and not stream.invite_only
                       and reads_public_channels(caller.role))
                   or (include_web_public and stream.is_web_public))
        if visible and not (exclude_archived and stream.is_archived):
            shown = stream_api_dict(stream)
            if include_default:
                shown["is_default"] = bool(stream.is_default)
            result.append(shown)
    return result
