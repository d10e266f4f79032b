"""The channels a role change shows or hides, told to the person whose role changed.

As the reference does: an administrator made a member stops seeing the private channels
they are not in; a member made a guest stops seeing the public ones they are not in;
the reverse changes show them. The person's clients hear of each channel they now see
(`stream/create`, then its subscribers as `subscription/peer_add`, in the same
transaction so the channel arrives first) and of each they no longer see
(`stream/delete`), so that nothing stale stays on screen until the next registration.

The role itself is written first, in its own transaction (actions/users/admin.py,
called through actions/workflows/user_update.py); these events follow it in
transactions of their own, a bounded number of channels each. If the request stops
between them, the role stands and a client that registers again sees the right
channels (registration asks the same rule).
"""
from __future__ import annotations

from dataclasses import replace

from chalicelib.actions.channels.add_subscribers import SubscriptionPeerAddEvent
from chalicelib.actions.channels.reads.channels import (
    StreamCreateEvent,
    StreamDeleteEvent,
    stream_api_dict,
)
from chalicelib.actions.channels.reads.permissions import has_metadata_access
from chalicelib.actions.channels.reads.subscribers import subscriber_lists
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.base import transaction
from chalicelib.models.channels import Stream, Subscription, user_key

# Channels per transaction: one stream/create event (about 1 KB a channel) and at most
# one peer_add per channel, well under a transaction's 100 items and 4 MB, and the
# create event under an item's 400 KB.
CHANNELS_PER_TRANSACTION = 60
# Deleted channels per event: only their ids.
DELETED_PER_EVENT = 1000


def visible_channel_ids(person: Principal, streams: list[Stream],
                        subscribed: set[int]) -> set[int]:
    """The channels this person knows of in their role (the rule registration asks)."""
    return {s.stream_id for s in streams
            if has_metadata_access(person, s, s.stream_id in subscribed)}


def tell_channel_visibility(person: Principal, old_role: int) -> None:
    """Sends the person the channels their role change showed or hid (nothing if none
    did). Reads the organization's channels (one paged Query) and the person's
    subscriptions (one Query)."""
    if old_role == person.role:
        return
    realm_id = person.realm_id
    streams = [s for s in Stream.query(realm_id) if not s.is_archived]
    subscribed = {int(s.stream_id) for s in Subscription.query(
        user_key(realm_id, person.user_id)) if s.active}
    before = visible_channel_ids(replace(person, role=old_role), streams, subscribed)
    after = visible_channel_ids(person, streams, subscribed)
    gained = [s for s in streams if s.stream_id in after - before]
    lost = sorted(before - after)
    for start in range(0, len(gained), CHANNELS_PER_TRANSACTION):
        _tell_shown(person, gained[start:start + CHANNELS_PER_TRANSACTION])
    for start in range(0, len(lost), DELETED_PER_EVENT):
        chunk = lost[start:start + DELETED_PER_EVENT]
        hidden: StreamDeleteEvent = {"type": "stream", "op": "delete",
                                     "streams": [{"stream_id": s} for s in chunk],
                                     "stream_ids": chunk}
        with transaction() as tx:
            add_event(tx, realm_id, hidden, to_users([person.user_id]))


def _tell_shown(person: Principal, streams: list[Stream]) -> None:
    realm_id = person.realm_id
    lists = subscriber_lists(realm_id, streams, True)
    shown: StreamCreateEvent = {"type": "stream", "op": "create",
                                "streams": [stream_api_dict(s) for s in streams]}
    with transaction() as tx:
        add_event(tx, realm_id, shown, to_users([person.user_id]))
        for stream in streams:
            subscribers = lists.get(stream.stream_id)
            if subscribers is None or not subscribers.user_ids:
                continue
            peers: SubscriptionPeerAddEvent = {
                "type": "subscription", "op": "peer_add", "stream_ids": [stream.stream_id],
                "user_ids": list(subscribers.user_ids)}
            add_event(tx, realm_id, peers, to_users([person.user_id]))
