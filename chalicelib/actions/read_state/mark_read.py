"""POST /mark_all_as_read, /mark_stream_as_read and /mark_topic_as_read.

Each reads only the caller's unread markers (a topic's through the markers' topic
index) and deletes them in transactions of ~100 with their events, so marking a topic
of 1,000 messages read is a Query page and ten transactions.
"""
from __future__ import annotations

import time
from typing import TypedDict

from chalicelib import config
from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.channels.topics import check_topic
from chalicelib.actions.read_state.markers import (
    FLAGS_PER_TRANSACTION,
    mark_channel_read,
    mark_read,
)
from chalicelib.actions.read_state.reads.pending import Recipient, unread_in_flight
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import stream_key, user_key
from chalicelib.models.message_flags import UnreadMessage
from chalicelib.models.messages import topic_key
from chalicelib.models.realms import get_realm
from chalicelib.models.topics import Topic, topic_item_key, topic_sort_key

# Markers read per round of mark_all_as_read: ten transactions' worth.
MARK_ALL_PAGE = 10 * FLAGS_PER_TRANSACTION


class MarkAllAsReadResult(TypedDict):
    complete: bool


def do_mark_all_as_read(caller: Principal) -> MarkAllAsReadResult:
    """Newest first, in rounds; stops early (complete false) so the request never runs
    into the gateway's timeout; the client repeats it, as the reference asks."""
    deadline = time.monotonic() + config.mark_all_as_read_seconds()
    key = user_key(caller.realm_id, caller.user_id)
    # Messages in flight once, before the first markers are read (reads/pending.py).
    in_flight = unread_in_flight(Recipient(caller.realm_id, caller.user_id))
    while True:
        markers = list(UnreadMessage.query(key, scan_index_forward=False, limit=MARK_ALL_PAGE))
        if not markers and not in_flight:
            return {"complete": True}
        mark_read(caller.realm_id, caller.user_id, markers, in_flight, all_messages=True)
        in_flight = []
        if time.monotonic() >= deadline:
            # One marker left or none: a Query of one item. (PynamoDB's count with a
            # limit never stops: COUNT pages carry no items, so it read every marker
            # left, a page of one at a time: 20,000 requests at 40,000 unread.)
            left = next(iter(UnreadMessage.query(key, limit=1)), None)
            return {"complete": left is None}


def do_mark_stream_as_read(caller: Principal, stream_id: int) -> None:
    access_stream_by_id(caller, stream_id)
    mark_channel_read(caller.realm_id, caller.user_id, stream_id)


def do_mark_topic_as_read(caller: Principal, stream_id: int, topic_name: str) -> None:
    stream, _ = access_stream_by_id(caller, stream_id)
    topic = check_topic(topic_name, get_realm(caller.realm_id), stream, enforce_policy=False)
    if Topic.get_or_none(stream_key(caller.realm_id, stream_id), topic_item_key(topic)) is None:
        raise ApiError(f"The topic '{topic_name}' has no messages here")
    in_flight = unread_in_flight(
        Recipient(caller.realm_id, caller.user_id),
        lambda m: m.type == "stream" and m.stream_id == stream_id
        and topic_sort_key(m.topic) == topic_sort_key(topic))
    markers = list(UnreadMessage.by_topic.query(topic_key(caller.realm_id, stream_id, topic),
                                                UnreadMessage.user_id == caller.user_id))
    mark_read(caller.realm_id, caller.user_id, markers, in_flight)
