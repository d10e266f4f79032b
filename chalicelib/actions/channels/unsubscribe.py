"""DELETE /users/me/subscriptions: unsubscribe yourself or, with permission, others.

Each batch of users is one transaction: the subscriptions (each conditioned on being
active), the channel's subscriber count, each user's `subscription remove` event, the
peers' `peer_remove` event, and for each user the internal record that has the fan-out
mark their unread messages there read (as the reference does after an unsubscribe).
"""
from __future__ import annotations

from typing import Literal, TypedDict

from chalicelib.actions.channels.access_events import (
    ChannelAccessChanges,
    GuestAccess,
    Record,
    add_records,
    write_records,
)
from chalicelib.actions.channels.add_subscribers import peer_audience
from chalicelib.actions.channels.principals import check_subscription_count, principal_users
from chalicelib.actions.channels.reads.channels import access_stream_by_id, stream_deleted_event
from chalicelib.actions.channels.reads.permissions import (
    UnsubscribedViewers,
    can_remove_subscribers,
    unsubscribed_viewers,
)
from chalicelib.core.errors import NOT_PERMITTED, ApiError, unknown_channel_name
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.delivery.records import unsubscribed_record
from chalicelib.models.base import transaction
from chalicelib.models.channels import (
    ChannelMembers,
    Stream,
    Subscription,
    channel_members,
    stream_id_by_name,
    user_key,
)
from chalicelib.models.ids import realm_counter
from chalicelib.models.races import retry_lost_races
from chalicelib.models.users import User

MAX_CHANNELS = 100
# 3 items per user + the channel, its members, the peers' event, guests' channel event,
# and room for the limited guests' access records (more go in a transaction after)
USERS_PER_TRANSACTION = 28
RECORDS_ROOM = 100 - 3 * USERS_PER_TRANSACTION - 4
MAX_ATTEMPTS = 3


class UnsubscribeResult(TypedDict):
    removed: list[str]
    not_removed: list[str]


class RemovedSubscription(TypedDict):
    name: str
    stream_id: int


class SubscriptionRemoveEvent(TypedDict):
    type: Literal["subscription"]
    op: Literal["remove"]
    subscriptions: list[RemovedSubscription]


class SubscriptionPeerRemoveEvent(TypedDict):
    type: Literal["subscription"]
    op: Literal["peer_remove"]
    stream_ids: list[int]
    user_ids: list[int]


def check_unsubscribe(caller: Principal, names: list[str],
                      principals: list[int] | list[str] | None) -> UnsubscribeResult:
    if not names:
        raise ApiError("Nothing to do. Specify at least one channel.")
    if len(names) > MAX_CHANNELS:
        raise ApiError(f"Too many channels: at most {MAX_CHANNELS} at a time.")
    users = principal_users(caller, principals)
    check_subscription_count(len(names), len(users))
    others = [u for u in users if u.user_id != caller.user_id]
    streams: list[Stream] = []
    for name in dict.fromkeys(n.strip() for n in names):
        stream_id = stream_id_by_name(caller.realm_id, name)
        if stream_id is None:
            raise unknown_channel_name(name)
        stream, subscription = access_stream_by_id(caller, stream_id,
                                                   require_content_access=False)
        if others and not all(_may_remove(caller, stream, subscription is not None, user)
                              for user in others):
            raise ApiError(NOT_PERMITTED)
        streams.append(stream)
    removed: list[str] = []
    not_removed: list[str] = []
    guests = GuestAccess(caller.realm_id)   # read once, if a guest may be involved
    for stream in streams:
        (removed if do_remove_subscribers(caller.realm_id, stream, users, guests) else
         not_removed).append(stream.name)
    return {"removed": removed, "not_removed": not_removed}


def _may_remove(caller: Principal, stream: Stream, subscribed: bool, user: User) -> bool:
    # Users may remove the bots they own from a channel they can access.
    if user.is_bot and user.bot_owner_id == caller.user_id:
        return True
    return can_remove_subscribers(caller, stream, subscribed)


def do_remove_subscribers(realm_id: int, stream: Stream, users: list[User],
                          guests: GuestAccess | None = None) -> set[int]:
    """Unsubscribes those of the users who are subscribed; returns who was removed.
    `guests`: what the request read of the organization's guests (read here if not
    given)."""
    guests = guests or GuestAccess(realm_id)
    removed: set[int] = set()
    def attempt() -> set[int]:
        # After a lost race, those not yet removed are read again: changed meanwhile.
        pending = [u for u in users if u.user_id not in removed]
        current = {s.user_id: s for s in Subscription.batch_get(
            [(user_key(realm_id, u.user_id), stream.stream_id) for u in pending],
            consistent_read=True) if s.active}
        active = [u for u in pending if u.user_id in current]
        if not active:
            return removed
        viewers = unsubscribed_viewers(stream)   # who still knows of it, once a request
        people = ChannelAccessChanges(guests, stream, active, "remove")
        # What was sent until now was received: read before the removal, so a message
        # sent meanwhile is never counted as received when it was not.
        counter = realm_counter(realm_id)
        last_sent = int(counter.message or 0) if counter is not None else 0
        for start in range(0, len(active), USERS_PER_TRANSACTION):
            chunk = active[start:start + USERS_PER_TRANSACTION]
            _remove_chunk(realm_id, stream, chunk, viewers, people.next(chunk), {
                u.user_id: current[u.user_id].ranges_after_leaving(last_sent) for u in chunk})
            removed.update(u.user_id for u in chunk)
        return removed

    return retry_lost_races(attempt, conflict="The subscriptions kept changing; try again.",
                            attempts=MAX_ATTEMPTS)


def _remove_chunk(realm_id: int, stream: Stream, users: list[User],
                  viewers: UnsubscribedViewers, records: list[Record],
                  received: dict[int, list[int]]) -> None:
    with transaction() as tx:
        tx.update(stream, actions=[Stream.subscriber_count.add(-len(users))])
        tx.update(channel_members(realm_id, stream.stream_id), actions=[
            ChannelMembers.user_ids.delete({u.user_id for u in users})])
        for user in users:
            tx.update(Subscription(user_key(realm_id, user.user_id), stream.stream_id),
                      actions=[Subscription.active.set(False),
                               Subscription.received_ranges.set(received[user.user_id])],
                      condition=Subscription.active == True)
            event: SubscriptionRemoveEvent = {
                "type": "subscription", "op": "remove",
                "subscriptions": [{"name": stream.name, "stream_id": stream.stream_id}]}
            add_event(tx, realm_id, event, to_users([user.user_id]))
            add_event(tx, realm_id, unsubscribed_record(user.user_id, stream.stream_id),
                      to_users([user.user_id]))
        losing = viewers.only_while_subscribed(users)
        if losing:   # as the reference: a channel they may no longer see is deleted
            add_event(tx, realm_id, stream_deleted_event(stream.stream_id), to_users(losing))
        peers = peer_audience(stream)
        peer_remove: SubscriptionPeerRemoveEvent = {
            "type": "subscription", "op": "peer_remove", "stream_ids": [stream.stream_id],
            "user_ids": [u.user_id for u in users]}
        add_event(tx, realm_id, peer_remove, peers)
        # Limited guests told whom they may no longer access
        overflow = add_records(tx, realm_id, records, RECORDS_ROOM)
    write_records(realm_id, overflow)
