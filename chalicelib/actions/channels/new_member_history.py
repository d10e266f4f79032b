"""A new member's first messages: the most recent messages of the channels they join at
signup, at most ONBOARDING_TOTAL_MESSAGES sent within ONBOARDING_RECENT_SECONDS, count
as received, as the reference's `add_new_user_history` gives them, so their combined
feed is not empty on their first visit. Only channels whose history they may read (web-
public, or history shared with subscribers); the messages are read (no unread marker).

What a subscription received starts at its `first_visible_message_id`: here it is moved
back to the oldest of those messages in the channel (only ever lowered, and only while
the subscription lasts). One Query per such channel, keys and dates only.
"""
from __future__ import annotations

from collections.abc import Iterable

from pynamodb.exceptions import UpdateError

from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.channels import Stream, Subscription, stream_key, user_key
from chalicelib.models.messages import Message
from chalicelib.rules.timeutil import now_seconds

ONBOARDING_TOTAL_MESSAGES = 1000
ONBOARDING_RECENT_SECONDS = 7 * 86_400


def give_recent_history(realm_id: int, user_id: int, streams: Iterable[Stream]) -> None:
    """Makes the channels' recent messages received by the new member (subscribed to
    every one of `streams` already)."""
    since = now_seconds() - ONBOARDING_RECENT_SECONDS
    recent: list[tuple[int, int]] = []   # (message id, channel id)
    for stream in streams:
        if not (stream.is_web_public or stream.history_public_to_subscribers):
            continue
        for message in Message.by_stream.query(
                stream_key(realm_id, stream.stream_id), scan_index_forward=False,
                limit=ONBOARDING_TOTAL_MESSAGES, page_size=ONBOARDING_TOTAL_MESSAGES,
                attributes_to_get=["message_id", "date_sent"]):
            if message.date_sent < since:
                break
            recent.append((message.message_id, stream.stream_id))
    oldest: dict[int, int] = {}
    for message_id, stream_id in sorted(recent, reverse=True)[:ONBOARDING_TOTAL_MESSAGES]:
        oldest[stream_id] = min(oldest.get(stream_id, message_id), message_id)
    for stream_id, first in oldest.items():
        try:
            Subscription(user_key(realm_id, user_id), stream_id).update(
                actions=[Subscription.first_visible_message_id.set(first)],
                condition=(Subscription.active == True)
                & (Subscription.first_visible_message_id > first))
        except UpdateError as error:
            if not is_write_condition_failure(error):
                raise   # else it already reaches back that far, or it ended meanwhile
