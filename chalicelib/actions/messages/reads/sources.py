"""Where a narrow's candidates come from, nearest the anchor first: the narrowest source
that lists them.

One message for `id`; the caller's own rows for `is:unread`, `is:starred`,
`is:mentioned` and `is:alerted`; a message index for a channel, a topic, a direct
conversation or a sender; for a topic without a channel, the topic index of each channel
whose topic list has it (without a channel's history, of the caller's channels only),
merged; for `dm-including` (`group-pm-with`: groups only), the direct-conversation index
of each of the caller's conversations with that user, merged; the search index for
`search`; the has: index for a positive `has:` or `is:resolved` term (image and
attachment even beside a channel or sender; the others only instead of the realm's list:
reads/properties.py). Otherwise a narrow that reads only what the caller received reads
their received messages (reads/received_feed.py), and one that reads history (such as
`channels:public`) the realm's messages by id. The caller of `candidates` checks access,
what was received, and the whole narrow.
"""
from __future__ import annotations

import heapq
from collections.abc import Iterator

from chalicelib import config
from chalicelib.actions.messages.reads.bound import (
    MESSAGES_PER_READ,
    PAGE_SIZE,
    Bound,
    load_messages,
    messages_of,
)
from chalicelib.actions.messages.reads.properties import indexed_property, property_ids
from chalicelib.actions.messages.reads.received_feed import received_messages
from chalicelib.actions.read_state.reads.pending import (
    Recipient,
    pending_between,
    unread_in_flight,
)
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream, Subscription, stream_key, user_key
from chalicelib.models.conversations import RecentConversation
from chalicelib.models.message_flags import MENTION_FLAGS, MessageFlag, UnreadMessage
from chalicelib.models.messages import Message, dm_key, sender_key, topic_key
from chalicelib.models.topics import Topic, topic_item_key
from chalicelib.narrow import Evaluator
from chalicelib.narrow.evaluate import GROUP_SIZE
from chalicelib.narrow.search_terms import search_candidates


def _personal_ids(caller: Principal, flag: str, bound: Bound) -> Iterator[int]:
    """The ids the caller's own rows list for is:unread/starred/mentioned/alerted."""
    key = user_key(caller.realm_id, caller.user_id)
    if flag == "unread":
        # Messages in flight first (read_state/reads/pending.py), merged into the
        # markers' order; the narrow's evaluator filters both afterwards.
        early = {m.message_id for m, _ in unread_in_flight(
            Recipient(caller.realm_id, caller.user_id), lambda m: bound.admits(m.message_id))}
        stored = (int(marker.message_id) for marker in UnreadMessage.query(
            key, bound.on(UnreadMessage.message_id), scan_index_forward=bound.forward)
            if marker.message_id not in early)
        yield from heapq.merge(sorted(early, reverse=not bound.forward), stored,
                               reverse=not bound.forward)
    elif flag == "starred":
        for row in MessageFlag.starred.query(key, bound.on(MessageFlag.message_id),
                                             scan_index_forward=bound.forward):
            yield int(row.message_id)
    else:
        names = MENTION_FLAGS if flag == "mentioned" else ("has_alert_word",)
        wanted = MessageFlag.flags.contains(names[0])
        for name in names[1:]:
            wanted = wanted | MessageFlag.flags.contains(name)
        for row in MessageFlag.query(key, bound.on(MessageFlag.message_id),
                                     filter_condition=wanted,
                                     scan_index_forward=bound.forward):
            yield int(row.message_id)


PERSONAL = ("unread", "starred", "mentioned", "alerted")


def candidates(caller: Principal, ev: Evaluator, bound: Bound, limit: int
               ) -> Iterator[Message]:
    """The messages that may match, nearest the anchor first, from one source."""
    narrow = ev.narrow
    page = max(min(limit * 2, PAGE_SIZE), 10)
    one = narrow.first("id")
    if one is not None:   # one message: read it, whatever else narrows
        if bound.admits(one.id):
            yield from load_messages(caller.realm_id, [one.id])
        return
    text = narrow.search_text
    if text is not None:
        channel = narrow.first("channel")
        yield from search_candidates(caller.realm_id, text, from_id=bound.value,
                                     below=bound.op == "<", newest_first=not bound.forward,
                                     stream_id=channel.id if channel is not None else None,
                                     batch=page)
        return
    for flag in PERSONAL:
        if narrow.has_term("is", flag):
            yield from messages_of(caller.realm_id, _personal_ids(caller, flag, bound))
            return
    indexed = indexed_property(narrow)
    if indexed is not None:
        yield from messages_of(caller.realm_id, property_ids(
            caller.realm_id, indexed, bound.on, bound.forward, max(page, MESSAGES_PER_READ)))
        return
    found = _conversation(caller, ev, bound, page)
    if found is not None:
        yield from found
    elif ev.include_history:
        yield from Message.query(caller.realm_id, bound.on(Message.message_id),
                                 scan_index_forward=bound.forward,
                                 page_size=PAGE_SIZE if narrow.terms else page)
    else:
        yield from received_messages(
            caller, bound, channels=not narrow.has_term("is", "dm"),
            direct=not (narrow.positive("channels") or any(
                t.negated and t.operator == "is" and t.operand == "dm"
                for t in narrow.terms)))


def _conversation(caller: Principal, ev: Evaluator, bound: Bound, page: int
                  ) -> Iterator[Message] | None:
    """A channel's, a topic's, a direct conversation's or a sender's messages, if the
    narrow names one (None otherwise)."""
    narrow, condition = ev.narrow, bound.on(Message.message_id)
    channel, topic = narrow.first("channel"), narrow.first("topic")
    if topic is not None and len(str(topic.operand)) > config.MAX_TOPIC_LENGTH:
        return iter(())   # no message has one; a long enough topic would exceed a key
    if channel is not None:
        if topic is not None:
            return Message.by_topic.query(
                topic_key(caller.realm_id, channel.id, str(topic.operand)), condition,
                scan_index_forward=bound.forward, page_size=page)
        return Message.by_stream.query(stream_key(caller.realm_id, channel.id), condition,
                                       scan_index_forward=bound.forward, page_size=page)
    if topic is not None:   # the topic in every channel that has it
        name = str(topic.operand)
        among = None if ev.include_history else _channels_of(caller)
        return heapq.merge(
            *(Message.by_topic.query(topic_key(caller.realm_id, stream_id, name), condition,
                                     scan_index_forward=bound.forward, page_size=page)
              for stream_id in _channels_with_topic(caller.realm_id, name, among)),
            key=lambda m: m.message_id, reverse=not bound.forward)
    dm = narrow.first("dm")
    if dm is not None and isinstance(dm.operand, tuple):
        participants = {int(u) for u in dm.operand} | {caller.user_id}
        return Message.by_dm.query(dm_key(caller.realm_id, participants), condition,
                                   scan_index_forward=bound.forward, page_size=page)
    including = narrow.first("dm-including") or narrow.first("group-pm-with")
    if including is not None and isinstance(including.operand, int):
        smallest = GROUP_SIZE if including.operator == "group-pm-with" else 0
        return heapq.merge(
            *(Message.by_dm.query(dm_key(caller.realm_id, participants), condition,
                                  scan_index_forward=bound.forward, page_size=page)
              for participants in _conversations_including(caller, including.operand)
              if len(participants) >= smallest),
            key=lambda m: m.message_id, reverse=not bound.forward)
    sender = narrow.first("sender")
    if sender is not None and isinstance(sender.operand, int):
        return Message.by_sender.query(sender_key(caller.realm_id, sender.operand),
                                       condition, scan_index_forward=bound.forward,
                                       page_size=page)
    return None


def _channels_of(caller: Principal) -> list[int]:
    """The channels the caller has a subscription item for (left ones too): one Query."""
    return [int(s.stream_id) for s in Subscription.query(
        user_key(caller.realm_id, caller.user_id), attributes_to_get=["stream_id"])]


def _channels_with_topic(realm_id: int, topic: str, among: list[int] | None) -> list[int]:
    """The channels (`among` these, or the realm's) whose topic list (models/topics.py)
    has the topic: one Query for the realm's channels, one BatchGetItem per 100."""
    channels = among if among is not None else [
        int(s.stream_id) for s in Stream.query(realm_id, attributes_to_get=["stream_id"])]
    found: set[int] = set()
    for start in range(0, len(channels), MESSAGES_PER_READ):
        keys = [(stream_key(realm_id, i), topic_item_key(topic))
                for i in channels[start:start + MESSAGES_PER_READ]]
        found |= {int(t.stream_key.rsplit("#", 1)[1]) for t in Topic.batch_get(keys)}
    return sorted(found)


def _conversations_including(caller: Principal, user_id: int) -> list[frozenset[int]]:
    """The caller's direct conversations that include the user: those the fan-out has
    delivered to (the caller's recent conversations) and those of messages still in
    flight. In flight first: a delivery raises the conversation before it settles, so
    a message is found in one or the other."""
    in_flight = pending_between(caller.realm_id)
    found = {frozenset(m.recipient_ids) for m in load_messages(
        caller.realm_id, sorted(in_flight)) if m.type == "private"}
    found |= {frozenset(int(u) for u in item.conversation.split(","))
              for item in RecentConversation.query(user_key(caller.realm_id,
                                                            caller.user_id))}
    return sorted((c for c in found if {caller.user_id, user_id} <= c), key=sorted)
