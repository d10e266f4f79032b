"""Subscribing (creating channels on the way), unsubscribing, listing subscriptions."""
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.channels.reads.channels import (
    StreamDict,
    SubscriptionDict,
    access_stream_by_id,
    stream_api_dict,
    stream_create_event,
    subscription_api_dict,
)
from chalicelib.actions.channels.reads.permissions import can_add_subscribers
from chalicelib.actions.channels.reads.subscribers import IncludeSubscribers, subscriber_lists
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import Audience, add_event, to_channel, to_realm, to_users
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channels import (
    MAX_MEMBER_SET,
    ChannelMembers,
    Stream,
    Subscription,
    channel_members,
    get_stream,
    stream_id_by_name,
    stream_key,
    user_key,
)
from chalicelib.models.ids import allocate_id, realm_counter
from chalicelib.models.realms import claim_name, get_realm, stream_name_key
from chalicelib.models.users import User, get_user_by_email
from chalicelib.rules.markdown import render_markdown
from chalicelib.rules.names import check_stream_name
from chalicelib.rules.timeutil import now_seconds

# At most this many new subscribers hear of it from the notification bot
# (send_new_subscription_messages, level 397), as the reference limits it.
MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100
USERS_PER_TRANSACTION = 45   # 2 items per user + the channel, its members, the peer event


class SubscribeResult(TypedDict):
    """By user id (a string key, as JSON has them; feature level 289): the names of the
    channels subscribed now, and of those already."""

    subscribed: dict[str, list[str]]
    already_subscribed: dict[str, list[str]]
    unauthorized: NotRequired[list[str]]   # with authorization_errors_fatal false
    # With send_new_subscription_messages (level 397; workflows/subscription_notices.py)
    new_subscription_messages_sent: NotRequired[bool]


class SubscriptionAddEvent(TypedDict):
    type: Literal["subscription"]
    op: Literal["add"]
    subscriptions: list[SubscriptionDict]


class SubscriptionPeerAddEvent(TypedDict):
    type: Literal["subscription"]
    op: Literal["peer_add"]
    stream_ids: list[int]
    user_ids: list[int]


COLORS = ["#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd"]



def peer_audience(stream: Stream) -> Audience:
    """Who hears of a channel's subscribers changing: the realm for a public channel,
    else the channel's subscribers."""
    return to_realm() if not stream.invite_only else \
        to_channel(stream.stream_id, public=False)

def principal_users(caller: Principal, principals: list[int] | list[str] | None) -> list[User]:
    if not principals:
        return [User.get(caller.realm_id, caller.user_id)]
    users: list[User] = []
    ids = [p for p in principals if isinstance(p, int)]
    found = {u.user_id: u for u in User.batch_get([(caller.realm_id, i) for i in ids])}
    for principal in principals:
        user = found.get(principal) if isinstance(principal, int) else get_user_by_email(
            caller.realm_id, principal)
        if user is None or not user.is_active:
            raise ApiError(f"No such user: {principal}")
        users.append(user)
    if any(u.user_id != caller.user_id for u in users) and caller.is_guest:
        raise ApiError("Insufficient permission: guests cannot subscribe other users.")
    return users


def _create_stream(caller: Principal, name: str, description: str, invite_only: bool,
                   history_public: bool) -> Stream:
    if caller.is_guest:
        raise ApiError("Insufficient permission: guests cannot create channels.")
    if len(description) > config.MAX_STREAM_DESCRIPTION_LENGTH:
        raise ApiError("Channel description too long (limit: "
                       f"{config.MAX_STREAM_DESCRIPTION_LENGTH} characters).")
    stream = Stream(caller.realm_id, allocate_id(caller.realm_id, "stream"), name=name,
                    description=description, rendered_description=render_markdown(description),
                    invite_only=invite_only,
                    history_public_to_subscribers=history_public or not invite_only,
                    date_created=now_seconds(), creator_id=caller.user_id)
    audience: Audience = to_users([caller.user_id]) if invite_only else to_realm()
    try:
        with transaction() as tx:
            tx.save(stream, condition=Stream.stream_id.does_not_exist())
            claim_name(tx, stream_name_key(caller.realm_id, name), stream.stream_id)
            add_event(tx, caller.realm_id, stream_create_event(stream), audience)
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        existing = stream_id_by_name(caller.realm_id, name)  # created concurrently
        found = get_stream(caller.realm_id, existing) if existing else None
        if found is None:
            raise
        return found
    return stream


def check_subscribe(caller: Principal, subscriptions: list[dict[str, Any]],
                    principals: list[int] | list[str] | None, invite_only: bool,
                    history_public_to_subscribers: bool | None,
                    authorization_errors_fatal: bool,
                    created: set[str] | None = None) -> SubscribeResult:
    """`created` collects the names of the channels this request created."""
    if not subscriptions:
        raise ApiError("Nothing to do. Specify at least one channel.")
    users = principal_users(caller, principals)
    subscribing_others = any(u.user_id != caller.user_id for u in users)
    realm = get_realm(caller.realm_id) if subscribing_others else None
    streams: list[Stream] = []
    unauthorized: list[str] = []
    for entry in subscriptions:
        if not isinstance(entry, dict) or "name" not in entry:
            raise ApiError("Each subscription needs a 'name'.")
        name = check_stream_name(entry["name"])
        stream_id = stream_id_by_name(caller.realm_id, name)
        if stream_id is None:
            streams.append(_create_stream(caller, name, str(entry.get("description", "")),
                                          invite_only, bool(history_public_to_subscribers)))
            if created is not None:
                created.add(streams[-1].name)
            continue
        try:
            stream, subscription = access_stream_by_id(
                caller, stream_id, require_content_access=not caller.is_admin)
            if stream.is_archived:
                raise ApiError("Channel is archived")
        except ApiError:
            if authorization_errors_fatal:
                raise ApiError(f"Unable to access channel ({name}).") from None
            unauthorized.append(name)
            continue
        if realm is not None and not can_add_subscribers(caller, stream,
                                                         subscription is not None, realm):
            raise ApiError(f"Insufficient permission to subscribe other users to '{name}'.")
        streams.append(stream)
    subscribed: dict[str, list[str]] = {}
    already: dict[str, list[str]] = {}
    for stream in streams:
        added = do_add_subscribers(caller.realm_id, stream, users)
        for user in users:
            target = subscribed if user.user_id in added else already
            target.setdefault(str(user.user_id), []).append(stream.name)
    result: SubscribeResult = {"subscribed": subscribed, "already_subscribed": already}
    if unauthorized:
        result["unauthorized"] = unauthorized
    return result


def do_add_subscribers(realm_id: int, stream: Stream, users: list[User]) -> set[int]:
    """Subscribes the users not yet subscribed, in transactions that are each complete."""
    current = {s.user_id: s for s in Subscription.batch_get(
        [(user_key(realm_id, u.user_id), stream.stream_id) for u in users])}
    new_users = [u for u in users if u.user_id not in current or not current[u.user_id].active]
    if not new_users:
        return set()
    first_visible = 0
    if not stream.history_public_to_subscribers:
        counter = realm_counter(realm_id)
        first_visible = int(counter.message or 0) + 1 if counter else 1
    for start in range(0, len(new_users), USERS_PER_TRANSACTION):
        chunk = new_users[start:start + USERS_PER_TRANSACTION]
        with transaction() as tx:
            tx.update(stream, actions=[Stream.subscriber_count.add(len(chunk))])
            if stream.subscriber_count + start + len(chunk) <= MAX_MEMBER_SET:
                tx.update(channel_members(realm_id, stream.stream_id), actions=[
                    ChannelMembers.user_ids.add({u.user_id for u in chunk})])
            for user in chunk:
                subscription = Subscription(
                    user_key(realm_id, user.user_id), stream.stream_id,
                    stream_key=stream_key(realm_id, stream.stream_id), realm_id=realm_id,
                    user_id=user.user_id, date_subscribed=now_seconds(),
                    first_visible_message_id=first_visible,
                    color=COLORS[stream.stream_id % len(COLORS)],
                    received_ranges=_earlier(current.get(user.user_id)))
                tx.save(subscription)
                added: SubscriptionAddEvent = {"type": "subscription", "op": "add",
                                               "subscriptions": [
                                                   subscription_api_dict(stream, subscription)]}
                add_event(tx, realm_id, added, to_users([user.user_id]))
            peers = peer_audience(stream)
            peer_add: SubscriptionPeerAddEvent = {"type": "subscription", "op": "peer_add",
                                                  "stream_ids": [stream.stream_id],
                                                  "user_ids": [u.user_id for u in chunk]}
            add_event(tx, realm_id, peer_add, peers)
    return {u.user_id for u in new_users}


def _earlier(previous: Subscription | None) -> list[int] | None:
    """What a user received in earlier subscriptions to the channel (kept on rejoining)."""
    return previous.received_ranges if previous is not None else None


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
                exclude_archived: bool = True) -> list[StreamDict]:
    if include_all_active and not caller.is_admin:
        raise ApiError("User not authorized for this query")
    subscribed = {s.stream_id for s in Subscription.query(
        user_key(caller.realm_id, caller.user_id)) if s.active}
    # Listing channels is bulk by nature: one Query over the realm's channels.
    result: list[StreamDict] = []
    for stream in Stream.query(caller.realm_id):
        visible = (include_all_active
                   or (include_subscribed and stream.stream_id in subscribed)
                   or (include_public and not stream.invite_only and not caller.is_guest))
        if visible and not (exclude_archived and stream.is_archived):
            shown = stream_api_dict(stream)
            if include_default:
                shown["is_default"] = bool(stream.is_default)
            result.append(shown)
    return result
