"""Channels ("streams" on the wire) and who is subscribed to them."""
from __future__ import annotations

from typing import Any

from pynamodb.attributes import (
    BooleanAttribute,
    MapAttribute,
    NumberSetAttribute,
    UnicodeAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex

from chalicelib import config
from chalicelib.models.attributes import IntegerAttribute, list_of
from chalicelib.models.base import BaseModel, table_meta
from chalicelib.models.realms import UniqueName, stream_name_key
from chalicelib.rules.group_settings import (
    CHANNEL_GROUP_SETTING_DEFAULTS,
    GroupSettingValue,
    stored_group_setting,
)

# Periods of a subscription kept after the user leaves, for the messages they received.
MAX_RECEIVED_RANGES = 50
# A channel's member set stops growing here (an item holds 400 KB; ids of 7 digits and
# their overhead take 8 bytes): larger channels' lists are read from the index.
MAX_MEMBER_SET = 25_000


class Stream(BaseModel):
    Meta = table_meta("streams")
    realm_id = IntegerAttribute(hash_key=True)
    stream_id = IntegerAttribute(range_key=True)
    name = UnicodeAttribute()
    description = UnicodeAttribute(default="")
    rendered_description = UnicodeAttribute(default="")
    invite_only = BooleanAttribute(default=False)
    is_web_public = BooleanAttribute(default=False)
    history_public_to_subscribers = BooleanAttribute(default=True)
    is_default = BooleanAttribute(default=False)
    is_archived = BooleanAttribute(default=False)
    date_created = IntegerAttribute()
    creator_id = IntegerAttribute(null=True)
    first_message_id = IntegerAttribute(null=True)
    # The newest message sent or moved here (raised only; a deleted one may stay named):
    # what a subscriber received last, without reading the channel's messages.
    last_message_id = IntegerAttribute(null=True)
    message_retention_days = IntegerAttribute(null=True)
    folder_id = IntegerAttribute(null=True)
    topics_policy = UnicodeAttribute(default="inherit")
    # Group-setting values (§2.7), stored as given: an int or a members/subgroups map.
    group_settings: MapAttribute[str, Any] = MapAttribute(default=dict)
    subscriber_count = IntegerAttribute(default=0)


def stream_key(realm_id: int, stream_id: int) -> str:
    return f"{realm_id}#{stream_id}"


def user_key(realm_id: int, user_id: int) -> str:
    return f"{realm_id}#{user_id}"


class SubscribersByStream(GlobalSecondaryIndex["Subscription"]):
    class Meta:
        index_name = "by_stream"
        projection = AllProjection()

    stream_key = UnicodeAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)


class Subscription(BaseModel):
    Meta = table_meta("subscriptions")
    user_key = UnicodeAttribute(hash_key=True)
    stream_id = IntegerAttribute(range_key=True)
    stream_key = UnicodeAttribute()
    realm_id = IntegerAttribute()
    user_id = IntegerAttribute()
    active = BooleanAttribute(default=True)
    date_subscribed = IntegerAttribute()
    # The first message id sent since the user subscribed (the realm's counter + 1 then):
    # from it on they receive the channel's messages, and in a channel with protected
    # history it is the first they may read. 0 on items written before subscriptions
    # kept it for every channel: those received the channel's whole history.
    first_visible_message_id = IntegerAttribute(default=0)
    color = UnicodeAttribute(default="#76ce90")
    is_muted = BooleanAttribute(default=False)
    pin_to_top = BooleanAttribute(default=False)
    desktop_notifications = BooleanAttribute(null=True)
    audible_notifications = BooleanAttribute(null=True)
    push_notifications = BooleanAttribute(null=True)
    email_notifications = BooleanAttribute(null=True)
    wildcard_mentions_notify = BooleanAttribute(null=True)
    # The message ids the user received in earlier subscriptions, as flat pairs
    # [first, last, first, last, ...] (the newest MAX_RECEIVED_RANGES): they stay the
    # user's to read after leaving, as the reference keeps a user's received messages.
    received_ranges = list_of(IntegerAttribute, null=True)
    by_stream = SubscribersByStream()

    def received(self, message_id: int) -> bool:
        """Whether the message came to the user in an earlier subscription."""
        pairs = self.received_ranges or []
        return any(pairs[i] <= message_id <= pairs[i + 1]
                   for i in range(0, len(pairs) - 1, 2))

    def received_periods(self) -> list[tuple[int, int | None]]:
        """The message ids the user received from the channel, as (first, last) periods,
        oldest first: the earlier subscriptions', then this one's (open-ended) if
        active."""
        pairs = self.received_ranges or []
        periods: list[tuple[int, int | None]] = [
            (pairs[i], pairs[i + 1]) for i in range(0, len(pairs) - 1, 2)]
        if self.active:
            periods.append((int(self.first_visible_message_id or 0), None))
        return periods

    def has_received(self, message_id: int) -> bool:
        """Whether the message came to the user, in this subscription or an earlier one."""
        return (self.active and message_id >= int(self.first_visible_message_id or 0)) \
            or self.received(message_id)

    def ranges_after_leaving(self, last_message_id: int) -> list[int]:
        """The received ranges with this subscription's own added (it ends now)."""
        pairs = [*(self.received_ranges or []), int(self.first_visible_message_id or 0),
                 last_message_id]
        return pairs[-2 * MAX_RECEIVED_RANGES:]


class _MembersByStream(GlobalSecondaryIndex["ChannelMembers"]):
    class Meta:
        index_name = "by_stream"
        projection = AllProjection()

    stream_key = UnicodeAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)


class ChannelMembers(BaseModel):
    """A channel's active subscribers as one set (in the subscriptions table, under a
    key no user has, and without `stream_key`, so the by_stream index never lists it).

    Why: registration in an organization of 2,000 channels listed every channel's
    subscribers with a Query each: 2,000 requests and 150,000 items at 10,000 people
    (docs/scale.md). These items come 100 to a BatchGetItem. Written in the
    transactions that change `Stream.subscriber_count`, so the set is always a subset of
    the active subscribers; it is the whole list when its size is that count (not so
    for channels from before the sets, or past MAX_MEMBER_SET: those are read from the
    index)."""

    Meta = table_meta("subscriptions")
    user_key = UnicodeAttribute(hash_key=True)      # members_key(realm_id)
    stream_id = IntegerAttribute(range_key=True)
    user_ids = NumberSetAttribute(null=True)        # DynamoDB keeps no empty set
    # The table's index, declared as the table has it; never set on these items.
    stream_key = UnicodeAttribute(null=True)
    user_id = IntegerAttribute(null=True)
    by_stream = _MembersByStream()


def members_key(realm_id: int) -> str:
    return f"{realm_id}#members"


def channel_members(realm_id: int, stream_id: int) -> ChannelMembers:
    """The item to update (ADD and DELETE of `user_ids`) in a subscription change."""
    return ChannelMembers(members_key(realm_id), stream_id)


def get_stream(realm_id: int, stream_id: int) -> Stream | None:
    return Stream.get_or_none(realm_id, stream_id)


def subscriber_ids(realm_id: int, stream_id: int) -> list[int]:
    """The channel's active subscribers (one Query of the by_stream index, paged)."""
    return [int(s.user_id) for s in Subscription.by_stream.query(
        stream_key(realm_id, stream_id), attributes_to_get=["user_id", "active"]) if s.active]


def channel_group_setting(stream: Stream, name: str) -> GroupSettingValue:
    return stored_group_setting(stream.group_settings, name,
                                CHANNEL_GROUP_SETTING_DEFAULTS[name], stream.creator_id)


def channel_group_settings(stream: Stream) -> dict[str, GroupSettingValue]:
    """Every group setting of the channel, its stored map read once (a channel's dict
    shows them all)."""
    stored = stream.group_settings.as_dict() if stream.group_settings else {}
    creator = stream.creator_id
    return {name: stored_group_setting(stored, name, default, creator)
            for name, default in CHANNEL_GROUP_SETTING_DEFAULTS.items()}


def get_subscription(realm_id: int, user_id: int, stream_id: int) -> Subscription | None:
    subscription = Subscription.get_or_none(user_key(realm_id, user_id), stream_id)
    return subscription if subscription is not None and subscription.active else None


def name_claim_key(realm_id: int, name: str) -> tuple[str, str] | None:
    """The key of a channel name's claim; None for a name no channel can have (a long
    enough one would exceed a key's size)."""
    if not name.strip() or len(name.strip()) > config.MAX_STREAM_NAME_LENGTH:
        return None
    return stream_name_key(realm_id, name)


def stream_id_by_name(realm_id: int, name: str) -> int | None:
    key = name_claim_key(realm_id, name)
    claim = None if key is None else UniqueName.get_or_none(*key)
    return None if claim is None else claim.target_id
