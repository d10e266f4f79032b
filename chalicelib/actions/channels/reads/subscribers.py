"""Many channels' subscriber lists at once, in full or partial (`include_subscribers`
of POST /register and GET /users/me/subscriptions).

Each channel's list is its member set (models/channels.ChannelMembers), 100 channels to
a BatchGetItem: a registration in an organization of 2,000 channels read 2,000 lists
with a Query each, 150,000 subscriptions at 10,000 people, past a request's time on
the local stack and most of its CPU on AWS. A channel whose set is not whole (from
before the sets, or too large for one) is read from the `by_stream` index, those
Queries side by side.

`partial` (the reference's level 412): a channel of MIN_PARTIAL_SUBSCRIBERS_CHANNEL_SIZE
subscribers or more gets `partial_subscribers` instead, its bots and the people active
in the last two weeks (a presence item: models/presence.py), as the reference promises;
smaller channels keep their whole list (the promise is "under 250"). The list is read
whole either way (membership is by channel); what shrinks is the answer, which for a
10,000-person organization is most of POST /register (docs/scale.md).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from chalicelib.core.feature_levels import PARTIAL_SUBSCRIBERS_LEVEL, level_reached
from chalicelib.core.principal import (
    ROLE_ADMINISTRATOR,
    ROLE_GUEST,
    ROLE_MEMBER,
    ROLE_MODERATOR,
    ROLE_OWNER,
)
from chalicelib.models.channels import (
    ChannelMembers,
    Stream,
    members_key,
    subscriber_ids,
)
from chalicelib.models.presence import Presence
from chalicelib.models.side_by_side import read_all, side_by_side
from chalicelib.models.users import User, role_key

# As the reference's default: from this many subscribers a channel's list may be partial.
MIN_PARTIAL_SUBSCRIBERS_CHANNEL_SIZE = 1000
RECENTLY_ACTIVE = timedelta(days=14)

HUMAN_ROLES = (ROLE_OWNER, ROLE_ADMINISTRATOR, ROLE_MODERATOR, ROLE_MEMBER, ROLE_GUEST)

IncludeSubscribers = bool | Literal["partial"]


@dataclass(frozen=True)
class SubscriberList:
    """The key it goes under ("subscribers" or "partial_subscribers") and the ids."""

    key: Literal["subscribers", "partial_subscribers"]
    user_ids: list[int]


def partial_offered() -> bool:
    """`partial_subscribers` is a field of level 412: it goes out only once this server
    advertises that level (until then `partial` is answered as `true`)."""
    return level_reached(PARTIAL_SUBSCRIBERS_LEVEL)


def subscriber_lists(realm_id: int, streams: Iterable[Stream], include: IncludeSubscribers,
                     ) -> dict[int, SubscriberList]:
    """Each channel's subscribers as `include` asks (nothing for False)."""
    if include is False:
        return {}
    channels = {s.stream_id: s for s in streams}
    lists = _member_lists(realm_id, channels)
    large = [s for s, stream in channels.items()
             if stream.subscriber_count >= MIN_PARTIAL_SUBSCRIBERS_CHANNEL_SIZE]
    if include != "partial" or not large or not partial_offered():
        return {s: SubscriberList("subscribers", ids) for s, ids in lists.items()}
    kept = _bots_and_recently_active(realm_id)
    return {s: SubscriberList("partial_subscribers", [u for u in ids if kept(u)])
            if s in large else SubscriberList("subscribers", ids)
            for s, ids in lists.items()}


def _member_lists(realm_id: int, channels: dict[int, Stream]) -> dict[int, list[int]]:
    """Each channel's active subscribers, sorted: from its member set where that set is
    whole (its size is the channel's count), else from the index (one Query each, side
    by side; so too a channel counted empty, which has no set to tell it from a channel
    of before the sets)."""
    counted = [s for s, stream in channels.items() if stream.subscriber_count]
    sets = {int(m.stream_id): m.user_ids or set() for m in read_all(
        ChannelMembers, [(members_key(realm_id), s) for s in counted])}
    lists = {s: sorted(int(u) for u in sets[s]) for s in counted
             if s in sets and len(sets[s]) == channels[s].subscriber_count}
    rest = [s for s in channels if s not in lists]
    lists.update(zip(rest, side_by_side(
        lambda stream_id: subscriber_ids(realm_id, stream_id), rest), strict=True))
    return {s: lists[s] for s in channels}


def _bots_and_recently_active(realm_id: int) -> _Kept:
    """Humans are listed by role (a keys-only index: about 40 bytes a person), so a
    subscriber who is not among them is a bot; the recently active are the realm's
    presence items (one Query)."""
    humans = {int(u.user_id) for found in side_by_side(
        lambda role: list(User.by_role.query(role_key(realm_id, role))), HUMAN_ROLES)
        for u in found}
    since = int((datetime.now(UTC) - RECENTLY_ACTIVE).timestamp())
    active = {int(p.user_id) for p in Presence.query(realm_id)
              if not p.hidden and int(p.connected_at or 0) >= since}
    return _Kept(humans, active)


@dataclass(frozen=True)
class _Kept:
    humans: set[int]
    active: set[int]

    def __call__(self, user_id: int) -> bool:
        return user_id not in self.humans or user_id in self.active
