"""The registration state of read flags: `unread_msgs` and `starred_messages`.

`unread_msgs` is built from one Query of the user's unread markers (newest first, at most
`MAX_UNREAD_MESSAGES`, as the reference), plus the user's subscriptions and topic
visibility policies for what counts and what is muted: a fixed number of Queries, paged;
messages the fan-out has not reached yet come from the realm's pending items.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TypedDict

from chalicelib.actions.read_state.reads.pending import (
    Recipient,
    new_marker,
    unread_in_flight,
)
from chalicelib.models.channels import Subscription, user_key
from chalicelib.models.message_flags import (
    MENTIONED_BIT,
    STREAM_WILDCARD_BIT,
    TOPIC_WILDCARD_BIT,
    MessageFlag,
    UnreadMessage,
)
from chalicelib.models.topics import FOLLOWED, MUTED, UNMUTED, UserTopic, topic_sort_key

MAX_UNREAD_MESSAGES = 50_000
# What unread_msgs needs of a marker: its key and place, not the keys it is stored and
# indexed under (a third of a marker's bytes; a reader with 50,000 reads them all).
UNREAD_STATE_ATTRIBUTES = ["user_key", "message_id", "sender_id", "mentions", "stream_id",
                           "topic", "dm_user_ids"]
MAX_STARRED_MESSAGES = 10_000


class UnreadDirectMessages(TypedDict):
    other_user_id: int
    sender_id: int            # the reference's deprecated name of other_user_id
    unread_message_ids: list[int]


class UnreadChannelMessages(TypedDict):
    stream_id: int
    topic: str
    unread_message_ids: list[int]


class UnreadGroupMessages(TypedDict):
    user_ids_string: str
    unread_message_ids: list[int]


class UnreadMessagesState(TypedDict):
    count: int
    pms: list[UnreadDirectMessages]
    streams: list[UnreadChannelMessages]
    huddles: list[UnreadGroupMessages]
    mentions: list[int]
    old_unreads_missing: bool


class _Visibility:
    """Whether a channel message is muted for the user (channel mute, topic policies)."""

    def __init__(self, subscriptions: Iterable[Subscription], topics: Iterable[UserTopic]
                 ) -> None:
        self.subscriptions = {s.stream_id: s for s in subscriptions if s.active}
        self.policies = {(t.stream_id, topic_sort_key(t.topic_name)): t.visibility_policy
                         for t in topics}

    def subscribed(self, stream_id: int) -> bool:
        return stream_id in self.subscriptions

    def muted(self, stream_id: int, topic: str) -> bool:
        policy = self.policies.get((stream_id, topic_sort_key(topic)))
        if self.subscriptions[stream_id].is_muted:
            return policy not in (UNMUTED, FOLLOWED)
        return policy == MUTED


def unread_msgs_state(realm_id: int, user_id: int, empty_topic_name: str | None, *,
                      subscriptions: Iterable[Subscription] | None = None,
                      topics: Iterable[UserTopic] | None = None) -> UnreadMessagesState:
    """`empty_topic_name`: what the empty topic shows as (None for clients that accept "").
    The user's subscriptions and topic policies are read here unless given (registration
    has read them already)."""
    key = user_key(realm_id, user_id)
    subscriptions = list(Subscription.query(key) if subscriptions is None else subscriptions)
    # Messages in flight first: once their pending item is gone, their markers exist.
    recipient = Recipient(realm_id, user_id, subscriptions)
    in_flight = [new_marker(realm_id, user_id, message, recipient.mention_bits(message))
                 for message, _ in unread_in_flight(recipient)]
    stored = list(UnreadMessage.query(key, scan_index_forward=False,
                                      limit=MAX_UNREAD_MESSAGES,
                                      attributes_to_get=UNREAD_STATE_ATTRIBUTES))
    early = {m.message_id for m in in_flight}
    markers = sorted([*in_flight, *(m for m in stored if m.message_id not in early)],
                     key=lambda m: -m.message_id)[:MAX_UNREAD_MESSAGES]
    visibility = _Visibility(subscriptions, UserTopic.query(key) if topics is None else topics)
    direct: dict[int, list[int]] = defaultdict(list)
    groups: dict[str, list[int]] = defaultdict(list)
    channels: dict[tuple[int, str], tuple[str, list[int]]] = {}
    mentions: list[int] = []
    count = 0
    for marker in markers:
        message_id = int(marker.message_id)
        wildcard = bool(marker.mentions & (STREAM_WILDCARD_BIT | TOPIC_WILDCARD_BIT))
        if marker.stream_id is not None:
            stream_id = int(marker.stream_id)
            if not visibility.subscribed(stream_id):
                continue   # as the reference: unread messages live in subscribed channels
            topic = marker.topic or ""
            shown = empty_topic_name if topic == "" and empty_topic_name is not None else topic
            entry = channels.setdefault((stream_id, topic_sort_key(shown)), (shown, []))
            entry[1].append(message_id)
            muted = visibility.muted(stream_id, topic)
            count += 0 if muted else 1
            if marker.mentions & MENTIONED_BIT or (wildcard and not muted):
                mentions.append(message_id)
            continue
        participants = marker.participant_ids
        others = [u for u in participants if u != user_id]
        if len(participants) <= 2:
            direct[others[0] if others else user_id].append(message_id)
        else:
            groups[marker.dm_user_ids or ""].append(message_id)   # the sorted participants
        count += 1
        if marker.mentions:
            mentions.append(message_id)
    return {
        "count": count,
        "pms": [{"other_user_id": other, "sender_id": other,
                 "unread_message_ids": sorted(ids)} for other, ids in sorted(direct.items())],
        "streams": [{"stream_id": stream_id, "topic": shown, "unread_message_ids": sorted(ids)}
                    for (stream_id, _), (shown, ids) in sorted(channels.items())],
        "huddles": [{"user_ids_string": users, "unread_message_ids": sorted(ids)}
                    for users, ids in sorted(groups.items())],
        "mentions": sorted(mentions),
        "old_unreads_missing": len(stored) == MAX_UNREAD_MESSAGES,
    }


def starred_messages_state(realm_id: int, user_id: int) -> list[int]:
    """The ids of the user's starred messages (one Query of a sparse index)."""
    return sorted(int(row.message_id) for row in MessageFlag.starred.query(
        user_key(realm_id, user_id), limit=MAX_STARRED_MESSAGES))
