"""Which messages a narrow holds around an anchor, and whether the caller may read them.

Candidates come from the narrowest source that lists them: one message for `id`; the
caller's own rows for `is:unread`, `is:starred`, `is:mentioned` and `is:alerted`; a
message index for a channel, a topic, a direct conversation or a sender; for a topic
without a channel, the topic index of each channel whose topic list has it, merged; for
`dm-including` (`group-pm-with`: groups only), the direct-conversation index of each of
the caller's conversations with that user, merged; the search index for `search`; the
has: index for a positive `has:` or `is:resolved` term (image and attachment even beside
a channel or sender; the others only instead of the realm's list: reads/properties.py);
the realm's messages otherwise. Each page of candidates is checked for access (channels
and subscriptions read once per request) and against the whole narrow by the narrow
package's one evaluator. A request examines at most `MAX_EXAMINED` candidates a side;
when it stops there, the found_* flag of that side stays false.
"""
from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from chalicelib import config
from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.messages.reads.narrow import resolve_narrow
from chalicelib.actions.messages.reads.properties import indexed_property, property_ids
from chalicelib.actions.read_state.reads.flags import flags_of
from chalicelib.actions.read_state.reads.pending import (
    Recipient,
    pending_between,
    unread_in_flight,
)
from chalicelib.aws.deadline import check_deadline
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream, stream_key, user_key
from chalicelib.models.conversations import RecentConversation
from chalicelib.models.message_flags import MENTION_FLAGS, MessageFlag, UnreadMessage
from chalicelib.models.messages import Message, dm_key, sender_key, topic_key
from chalicelib.models.topics import Topic, topic_item_key
from chalicelib.narrow import Evaluator, Narrow, Term, message_facts, parse_narrow
from chalicelib.narrow.evaluate import GROUP_SIZE
from chalicelib.narrow.search_terms import search_candidates, search_test

MAX_BATCH = 5000           # messages one GET /messages may ask for (num_before + num_after)
MAX_EXAMINED = 5000        # candidates read on one side of the anchor before giving up
MESSAGES_PER_READ = 100    # BatchGetItem's limit
PAGE_SIZE = 200            # Query page for sources the narrow filters further


@dataclass(frozen=True)
class Bound:
    """Where to look from the anchor: ids >= value or < value, read in id order
    (`forward`) or from the newest down."""

    op: Literal[">=", "<"]
    value: int
    forward: bool

    def on(self, attribute: Any) -> Any:
        return attribute >= self.value if self.op == ">=" else attribute < self.value

    def admits(self, message_id: int) -> bool:
        return message_id >= self.value if self.op == ">=" else message_id < self.value


def resolve(caller: Principal, terms: Any) -> Evaluator:
    """The wire narrow, parsed and resolved for the caller."""
    return resolve_narrow(caller, parse_narrow(terms), search_test)


def load_messages(realm_id: int, message_ids: list[int]) -> list[Message]:
    """The messages in the order given (BatchGetItem, 100 a request)."""
    found: dict[int, Message] = {}
    for start in range(0, len(message_ids), MESSAGES_PER_READ):
        chunk = message_ids[start:start + MESSAGES_PER_READ]
        found.update((m.message_id, m) for m in Message.batch_get(
            [(realm_id, i) for i in chunk]))
    return [found[i] for i in message_ids if i in found]


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


def _by_ids(caller: Principal, ids: Iterator[int]) -> Iterator[Message]:
    while chunk := [i for _, i in zip(range(MESSAGES_PER_READ), ids, strict=False)]:
        yield from load_messages(caller.realm_id, chunk)


PERSONAL = ("unread", "starred", "mentioned", "alerted")


def _candidates(caller: Principal, ev: Evaluator, bound: Bound, limit: int
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
            yield from _by_ids(caller, _personal_ids(caller, flag, bound))
            return
    indexed = indexed_property(narrow)
    if indexed is not None:
        yield from _with_property(caller, indexed, bound, page)
        return
    condition = bound.on(Message.message_id)
    channel, topic = narrow.first("channel"), narrow.first("topic")
    if channel is not None:
        stream_id = channel.id
        if topic is not None:
            if len(str(topic.operand)) > config.MAX_TOPIC_LENGTH:
                return   # no message has one; a long enough topic would exceed a key's size
            yield from Message.by_topic.query(
                topic_key(caller.realm_id, stream_id, str(topic.operand)), condition,
                scan_index_forward=bound.forward, page_size=page)
        else:
            yield from Message.by_stream.query(stream_key(caller.realm_id, stream_id),
                                               condition, scan_index_forward=bound.forward,
                                               page_size=page)
        return
    if topic is not None:   # the topic in every channel that has it
        name = str(topic.operand)
        if len(name) > config.MAX_TOPIC_LENGTH:
            return
        yield from heapq.merge(
            *(Message.by_topic.query(topic_key(caller.realm_id, stream_id, name), condition,
                                     scan_index_forward=bound.forward, page_size=page)
              for stream_id in _channels_with_topic(caller.realm_id, name)),
            key=lambda m: m.message_id, reverse=not bound.forward)
        return
    dm = narrow.first("dm")
    if dm is not None and isinstance(dm.operand, tuple):
        participants = {int(u) for u in dm.operand} | {caller.user_id}
        yield from Message.by_dm.query(dm_key(caller.realm_id, participants), condition,
                                       scan_index_forward=bound.forward, page_size=page)
        return
    including = narrow.first("dm-including") or narrow.first("group-pm-with")
    if including is not None and isinstance(including.operand, int):
        smallest = GROUP_SIZE if including.operator == "group-pm-with" else 0
        yield from heapq.merge(
            *(Message.by_dm.query(dm_key(caller.realm_id, participants), condition,
                                  scan_index_forward=bound.forward, page_size=page)
              for participants in _conversations_including(caller, including.operand)
              if len(participants) >= smallest),
            key=lambda m: m.message_id, reverse=not bound.forward)
        return
    sender = narrow.first("sender")
    if sender is not None and isinstance(sender.operand, int):
        yield from Message.by_sender.query(sender_key(caller.realm_id, sender.operand),
                                           condition, scan_index_forward=bound.forward,
                                           page_size=page)
        return
    yield from Message.query(caller.realm_id, condition, scan_index_forward=bound.forward,
                             page_size=PAGE_SIZE if narrow.terms else page)


def _with_property(caller: Principal, name: str, bound: Bound, page: int
                   ) -> Iterator[Message]:
    """The messages the has: index lists for the property (rows of deleted messages
    read as nothing; the evaluator checks the property itself)."""
    yield from _by_ids(caller, property_ids(caller.realm_id, name, bound.on, bound.forward,
                                            max(page, MESSAGES_PER_READ)))


def _channels_with_topic(realm_id: int, topic: str) -> list[int]:
    """The realm's channels whose topic list (models/topics.py) has the topic: one Query
    for the channels, one BatchGetItem per 100 of them."""
    channels = [int(s.stream_id) for s in Stream.query(realm_id,
                                                       attributes_to_get=["stream_id"])]
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


@dataclass
class Side:
    """The readable matches on one side of the anchor, nearest first, and whether the
    source ran out (rather than the limit or the examination cap stopping the read)."""

    messages: list[Message] = field(default_factory=list)
    exhausted: bool = True


def fetch(caller: Principal, ev: Evaluator, bound: Bound, limit: int,
          access: Access | None = None) -> Side:
    """Up to `limit` readable messages of the narrow on one side of the anchor."""
    side = Side()
    if limit <= 0:
        side.exhausted = False
        return side
    access = access or Access(caller)
    narrowed = _within_received(ev, bound, access)
    if narrowed is None:
        return side   # nothing the caller received lies on this side
    source = _candidates(caller, ev, narrowed, limit)
    examined = 0
    chunk_size = min(MESSAGES_PER_READ, limit + 1)
    while chunk := [m for _, m in zip(range(chunk_size), source, strict=False)]:
        check_deadline()
        examined += len(chunk)
        side.messages.extend(matching(caller, ev, chunk, access))
        if len(side.messages) >= limit:
            del side.messages[limit:]
            side.exhausted = False
            return side
        if len(chunk) < chunk_size:
            return side   # the source ran out
        if examined >= MAX_EXAMINED:
            side.exhausted = False
            return side
        chunk_size = MESSAGES_PER_READ
    return side


def _within_received(ev: Evaluator, bound: Bound, access: Access) -> Bound | None:
    """The side narrowed to the ids the caller received, for a channel they may read
    only so (one they left): the channel's newer messages are not read one by one."""
    channel = ev.narrow.first("channel")
    span = access.received_span(channel.id) if channel is not None else None
    if span is None:
        return bound
    low, high = span
    if bound.op == "<":
        return bound if bound.value <= high + 1 else Bound("<", high + 1, bound.forward)
    if bound.value > high:
        return None
    return bound if bound.value >= low else Bound(">=", low, bound.forward)


def matching(caller: Principal, ev: Evaluator, messages: list[Message], access: Access
             ) -> list[Message]:
    """The messages the caller may read and the narrow holds (flags read in one batch,
    only if the narrow needs them)."""
    access.load(messages)
    readable = [m for m in messages if access.may_read(m)]
    flags = flags_of(caller.realm_id, caller.user_id, [m.message_id for m in readable],
                     readable) \
        if ev.needs_flags and readable else {}
    return [m for m in readable if ev.matches(message_facts(
        m, access.channel(int(m.stream_id))[0] if m.type == "stream" else None,
        flags.get(m.message_id) if ev.needs_flags else None))]


# The anchor `newest` stands for, and `first_unread` when nothing is unread: larger than
# any message id, so clients can tell "at the end of history" from a message's id
# (the reference's LARGER_THAN_MAX_MESSAGE_ID, which clients compare against).
LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000


@dataclass
class MessageRange:
    messages: list[Message]
    anchor: int
    found_anchor: bool
    found_oldest: bool
    found_newest: bool
    access: Access   # what was read to check the messages: their channels, subscriptions


def first_unread_id(caller: Principal, ev: Evaluator) -> int | None:
    """The oldest unread message of the narrow the caller may read."""
    unread = Evaluator(Narrow((*ev.narrow.terms, Term("is", "unread"))), ev.reader,
                       ev.search_test)
    found = fetch(caller, unread, Bound(">=", 0, forward=True), 1).messages
    return found[0].message_id if found else None


def parse_anchor(anchor: str) -> str | int:
    """`newest`, `oldest`, `first_unread`, `date`, or a message id (a negative id reads as
    0 and one past the largest as the largest, as the reference reads them)."""
    if anchor in ("newest", "oldest", "first_unread", "date"):
        return anchor
    if not anchor.lstrip("-").isdigit() or len(anchor) > 20:
        raise ApiError("Invalid anchor")
    return min(max(int(anchor), 0), LARGER_THAN_MAX_MESSAGE_ID)


def check_counts(num_before: int, num_after: int, maximum: int = MAX_BATCH) -> None:
    if num_before < 0 or num_after < 0 or num_before > maximum or num_after > maximum:
        raise ApiError(f"num_before and num_after must be between 0 and {maximum}")


def check_anchor_exclusion(include_anchor: bool, num_before: int, num_after: int) -> None:
    """The anchor can be left out only at an end of the range, as the reference has it."""
    if not include_anchor and num_before > 0 and num_after > 0:
        raise ApiError("include_anchor=false needs num_before or num_after to be 0: the "
                       "anchor can only be left out at one end of the range")


def fetch_range(caller: Principal, ev: Evaluator, anchor: str | int, include_anchor: bool,
                num_before: int, num_after: int) -> MessageRange:
    """The messages around the anchor (`newest`, `oldest`, `first_unread` or an id), with
    the reference's counts and flags in every corner (its `limit_query_to_range` and
    `post_process_limited_query`): `newest`, and `first_unread` with nothing unread, stand
    for an anchor past every message, so they give exactly `num_before` messages and
    answer LARGER_THAN_MAX_MESSAGE_ID; the anchor itself comes on top of `num_before` and
    `num_after` when it matches; asking for neither side reads the anchor alone."""
    check_anchor_exclusion(include_anchor, num_before, num_after)
    anchor_id = _anchor_id(caller, ev, anchor)
    at_left, at_right = anchor_id <= 0, anchor_id >= LARGER_THAN_MAX_MESSAGE_ID
    if at_right:
        num_after = 0
    need_before, need_after = not at_left and num_before > 0, not at_right and num_after > 0
    access = Access(caller)
    older, newer = Side(), Side()
    if need_before and need_after:
        older = fetch(caller, ev, Bound("<", anchor_id, forward=False), num_before, access)
        newer = fetch(caller, ev, Bound(">=", anchor_id, forward=True), num_after + 1,
                      access)
    elif need_before:
        # Up to and with the anchor when it is wanted (and is not past every message).
        upper = anchor_id + 1 if include_anchor and not at_right else anchor_id
        extra = 1 if include_anchor and not at_right else 0
        older = fetch(caller, ev, Bound("<", upper, forward=False), num_before + extra,
                      access)
    elif need_after:
        lower = 0 if at_left else anchor_id + (0 if include_anchor else 1)
        newer = fetch(caller, ev, Bound(">=", lower, forward=True),
                      num_after + (1 if include_anchor else 0), access)
    elif not at_left and not at_right:
        newer = Side(matching(caller, ev, load_messages(caller.realm_id, [anchor_id]),
                              access))
    rows = sorted(older.messages + newer.messages, key=lambda m: m.message_id)
    if at_right:
        before, anchored, after = rows, [], []
    else:
        before = [m for m in rows if m.message_id < anchor_id]
        anchored = [m for m in rows if m.message_id == anchor_id]
        after = [m for m in rows if m.message_id > anchor_id]
    if num_before:
        before = before[-num_before:]
    if num_after:
        after = after[:num_after]
    # A side stopped by the examination cap (not exhausted) cannot claim the end.
    found_oldest = at_left or (len(before) < num_before and older.exhausted)
    found_newest = at_right or (len(after) < num_after and newer.exhausted)
    return MessageRange(before + anchored + after, anchor_id, len(anchored) == 1,
                        found_oldest, found_newest, access)


def _anchor_id(caller: Principal, ev: Evaluator, anchor: str | int) -> int:
    """The anchor as a message id: `oldest` is 0; `newest`, and `first_unread` with nothing
    unread in the narrow, are LARGER_THAN_MAX_MESSAGE_ID."""
    if anchor == "oldest":
        return 0
    if anchor == "newest":
        return LARGER_THAN_MAX_MESSAGE_ID
    if anchor == "first_unread":
        unread = first_unread_id(caller, ev)
        return unread if unread is not None else LARGER_THAN_MAX_MESSAGE_ID
    if isinstance(anchor, str):
        raise ApiError("Invalid anchor")
    return min(max(anchor, 0), LARGER_THAN_MAX_MESSAGE_ID)
