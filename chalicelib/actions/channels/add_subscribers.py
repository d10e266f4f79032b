"""Subscribing users to a channel (do_add_subscribers), creating it with its first
subscribers when new (NewChannel): the writes and events of a subscription change."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

from pynamodb.transactions import TransactWrite

from chalicelib.actions.channels.access_events import (
    ChannelAccessChanges,
    GuestAccess,
    add_records,
    write_records,
)
from chalicelib.actions.channels.reads.channels import (
    SubscriptionDict,
    stream_create_event,
    subscription_api_dict,
)
from chalicelib.actions.channels.reads.permissions import unsubscribed_viewers, viewers_audience
from chalicelib.delivery.outbox import Audience, add_event, to_channel, to_users
from chalicelib.models.base import transaction
from chalicelib.models.channels import (
    MAX_MEMBER_SET,
    ChannelMembers,
    Stream,
    Subscription,
    channel_members,
    stream_key,
    user_key,
)
from chalicelib.models.ids import realm_counter
from chalicelib.models.realms import claim_name, stream_name_key
from chalicelib.models.users import User
from chalicelib.rules.channel_access import visibility
from chalicelib.rules.timeutil import now_seconds

# 2 items per user + the channel, its members, the peer event, guests' channel event
# (with a new channel: its name and its creation event besides), and room for the
# limited guests' access records (actions/channels/access_events.py; more go in a
# transaction after).
USERS_PER_TRANSACTION = 40
RECORDS_ROOM = 100 - 2 * USERS_PER_TRANSACTION - 6


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
    """Who hears of a channel's subscribers changing: whoever may know of a public
    channel (web-public: everyone; public: members and above, and its subscribers),
    else the channel's subscribers."""
    return to_channel(stream.stream_id, public=False) if stream.invite_only else \
        viewers_audience(stream.stream_id, visibility(stream))


@dataclass(frozen=True)
class NewChannel:
    """A channel a request creates, written in the transaction of its first subscribers
    (do_add_subscribers): it never exists without them, so a request that failed after
    it is finished by repeating it (a private channel its creator could not reach
    otherwise)."""

    stream: Stream
    audience: Audience

    def write(self, tx: TransactWrite, subscribers: int) -> None:
        realm_id = self.stream.realm_id
        # The event shows the channel as created, before anyone joined.
        add_event(tx, realm_id, stream_create_event(self.stream), self.audience)
        self.stream.subscriber_count = subscribers
        tx.save(self.stream, condition=Stream.stream_id.does_not_exist())
        claim_name(tx, stream_name_key(realm_id, self.stream.name), self.stream.stream_id)


def do_add_subscribers(realm_id: int, stream: Stream, users: list[User],
                       creating: NewChannel | None = None,
                       guests: GuestAccess | None = None) -> set[int]:
    """Subscribes the users not yet subscribed, in transactions that are each complete;
    a channel being created (`creating`) is written with the first of them. `guests`:
    what the request read of the organization's guests (read here if not given)."""
    current = {} if creating is not None else {s.user_id: s for s in Subscription.batch_get(
        [(user_key(realm_id, u.user_id), stream.stream_id) for u in users])}
    new_users = [u for u in users if u.user_id not in current or not current[u.user_id].active]
    if not new_users and creating is None:
        return set()
    # The subscription receives the messages sent from now on (the fan-out's recipients,
    # and what a narrow without a channel's history reads); in a channel with protected
    # history they are also the first the user may read.
    counter = realm_counter(realm_id)
    first_visible = int(counter.message or 0) + 1 if counter else 1
    counted = stream.subscriber_count
    viewers = unsubscribed_viewers(stream)   # who knows of it without subscribing
    people = ChannelAccessChanges(guests or GuestAccess(realm_id), stream, new_users, "add",
                                  new=creating is not None)
    for start in range(0, max(len(new_users), 1), USERS_PER_TRANSACTION):
        chunk = new_users[start:start + USERS_PER_TRANSACTION]
        with transaction() as tx:
            if creating is not None and start == 0:
                # the creation event reaches the first chunk as subscribers
                creating.write(tx, subscribers=len(chunk))
            else:
                gaining = viewers.only_while_subscribed(chunk)
                if gaining:   # the channel before the subscription, as the reference sends it
                    add_event(tx, realm_id, stream_create_event(stream), to_users(gaining))
                tx.update(stream, actions=[Stream.subscriber_count.add(len(chunk))])
            if chunk and counted + start + len(chunk) <= MAX_MEMBER_SET:
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
            if chunk:
                peer_add: SubscriptionPeerAddEvent = {
                    "type": "subscription", "op": "peer_add", "stream_ids": [stream.stream_id],
                    "user_ids": [u.user_id for u in chunk]}
                add_event(tx, realm_id, peer_add, peer_audience(stream))
            # Limited guests told whom they may now access (after the subscriptions)
            overflow = add_records(tx, realm_id, people.next(chunk), RECORDS_ROOM)
        write_records(realm_id, overflow)
    return {u.user_id for u in new_users}


def _earlier(previous: Subscription | None) -> list[int] | None:
    """What a user received in earlier subscriptions to the channel (kept on rejoining)."""
    return previous.received_ranges if previous is not None else None
