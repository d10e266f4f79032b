"""The messages a caller received, nearest the anchor first: the candidates of a narrow
that reads received messages only and names no narrower source (the combined feed,
`is:dm`, `-channel:x`, `channels:public` for a guest, ...).

One source per period of each of the caller's subscriptions (the channel's index,
between the period's first and last id: reads/received.py says what a period is), one
per direct conversation of theirs (the conversation's index), and one of their
historical rows; merged by id. A source is opened (its first Query sent) only when the
merge reaches the nearest id it can hold: reading newest first, a channel's newest
message (its item's `last_message_id`) or a conversation's; reading forward, the
sources with nothing past the anchor are never opened. So a page of the newest
messages costs the reads of the caller's subscriptions, channels and conversations
(a Query or a BatchGetItem per 100 of each) and one Query for each channel and
conversation active since the page's oldest message, whatever the organization's size;
and a source's pages start at 16 items and grow, so an opened source that gives little
reads little.
"""
from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from chalicelib.actions.messages.reads.bound import Bound, growing_pages, messages_of
from chalicelib.actions.read_state.reads.historical import historical_id_pages
from chalicelib.actions.read_state.reads.pending import load, pending_between
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream, Subscription, stream_key, user_key
from chalicelib.models.conversations import RecentConversation
from chalicelib.models.messages import Message, dm_key

CHANNELS_PER_READ = 100   # BatchGetItem's limit


@dataclass(frozen=True)
class Source:
    """A list of messages in the merge's order, opened on demand; `reach` is the nearest
    id to the anchor it can hold (its newest reading backward, its oldest forward)."""

    reach: int
    open: Callable[[], Iterator[Message]]


def received_messages(caller: Principal, bound: Bound, *, channels: bool = True,
                      direct: bool = True) -> Iterator[Message]:
    """The caller's received messages on the bound's side, nearest first (`channels`,
    `direct`: which kinds the narrow can hold)."""
    span = bound.within(0, None)
    if span is None:
        return   # nothing lies on this side
    in_flight = list(load(caller.realm_id, pending_between(caller.realm_id, *span)).values())
    sources: list[Source] = []
    if channels:
        sources += _channel_sources(caller, bound, in_flight)
        sources.append(_historical_source(caller, span, bound.forward))
    if direct:
        sources += _conversation_sources(caller, bound, in_flight)
    yield from merged(sources, bound.forward)


def merged(sources: list[Source], forward: bool) -> Iterator[Message]:
    """The sources' messages in one order (each id once), a source opened only when the
    merge could next take from it."""
    sign = 1 if forward else -1
    waiting = sorted(sources, key=lambda s: sign * s.reach)
    heap: list[tuple[int, int, Message, Iterator[Message]]] = []
    order = itertools.count()

    def take(messages: Iterator[Message]) -> None:
        message = next(messages, None)
        if message is not None:
            heapq.heappush(heap, (sign * message.message_id, next(order), message, messages))

    opened, last = 0, None
    while True:
        while opened < len(waiting) and (not heap or sign * waiting[opened].reach
                                         <= heap[0][0]):
            take(waiting[opened].open())
            opened += 1
        if not heap:
            return
        _, _, message, messages = heapq.heappop(heap)
        take(messages)
        if message.message_id != last:
            last = message.message_id
            yield message


def _channel_sources(caller: Principal, bound: Bound, in_flight: list[Message]
                     ) -> list[Source]:
    """A source per received period of each channel the caller has a subscription item
    for (left ones too), cut to the bound. Its reach reading newest first: the newest of
    the channel's `last_message_id` (raised as each send ends) and its messages in
    flight (sent, not yet fanned out), so a message just sent is never passed over."""
    subscriptions = list(Subscription.query(user_key(caller.realm_id, caller.user_id)))
    ids = sorted({int(s.stream_id) for s in subscriptions})
    streams: dict[int, Stream] = {}
    for start in range(0, len(ids), CHANNELS_PER_READ):
        streams.update((s.stream_id, s) for s in Stream.batch_get(
            [(caller.realm_id, i) for i in ids[start:start + CHANNELS_PER_READ]]))
    sent: dict[int, int] = {}
    for message in in_flight:
        if message.type == "stream":
            sent[int(message.stream_id)] = max(sent.get(int(message.stream_id), 0),
                                               message.message_id)
    sources = []
    for subscription in subscriptions:
        stream = streams.get(int(subscription.stream_id))
        if stream is None:
            continue
        newest = max(int(stream.last_message_id or 0), sent.get(stream.stream_id, 0)) \
            if stream.last_message_id is not None else None
        for first, last in subscription.received_periods():
            span = bound.within(first, last)
            if span is None or (bound.forward and newest is not None and newest < span[0]):
                continue
            reach = span[0] if bound.forward else (
                span[1] if newest is None else min(span[1], newest))
            if not bound.forward and reach < span[0]:
                continue   # nothing sent in this period on this side
            sources.append(Source(reach, _channel_reader(caller.realm_id, stream.stream_id,
                                                         span, bound.forward)))
    return sources


def _channel_reader(realm_id: int, stream_id: int, span: tuple[int, int], forward: bool
                    ) -> Callable[[], Iterator[Message]]:
    key = stream_key(realm_id, stream_id)
    return lambda: growing_pages(lambda **page: Message.by_stream.query(
        key, Message.message_id.between(*span), scan_index_forward=forward, **page))


def _conversation_sources(caller: Principal, bound: Bound, in_flight: list[Message]
                          ) -> list[Source]:
    """A source per direct conversation of the caller: those the fan-out has delivered
    to (their conversation items, with the newest id) and those of messages in flight
    (a delivery raises the item before the message leaves flight)."""
    newest: dict[frozenset[int], int] = {}
    for item in RecentConversation.query(user_key(caller.realm_id, caller.user_id)):
        participants = frozenset(int(u) for u in item.conversation.split(","))
        newest[participants] = int(item.max_message_id)
    for message in in_flight:
        if message.type == "private" and caller.user_id in message.recipient_ids:
            participants = frozenset(message.recipient_ids)
            newest[participants] = max(newest.get(participants, 0), message.message_id)
    sources = []
    for participants, last in newest.items():
        span = bound.within(0, None)
        if span is None or (bound.forward and last < span[0]):
            continue
        key = dm_key(caller.realm_id, participants)
        sources.append(Source(span[0] if bound.forward else min(span[1], last),
                              _conversation_reader(key, span, bound.forward)))
    return sources


def _conversation_reader(key: str, span: tuple[int, int], forward: bool
                         ) -> Callable[[], Iterator[Message]]:
    return lambda: growing_pages(lambda **page: Message.by_dm.query(
        key, Message.message_id.between(*span), scan_index_forward=forward, **page))


def _historical_source(caller: Principal, span: tuple[int, int], forward: bool) -> Source:
    """The caller's historical rows with ids in `span` (their newest is not known: opened
    first)."""
    def read() -> Iterator[Message]:
        ids = historical_id_pages(caller.realm_id, caller.user_id, *span, forward)
        return messages_of(caller.realm_id, ids)
    return Source(span[0] if forward else span[1], read)
