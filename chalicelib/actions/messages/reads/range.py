"""Which messages a narrow holds around an anchor, and whether the caller may read them.

Candidates come from the narrowest source that lists them: the caller's own rows for
`is:unread`, `is:starred` and `is:mentioned`; a message index for a channel, topic or
direct conversation; the realm's messages (with a page cap) otherwise. Messages are
then checked for access with the channels and subscriptions read once per request.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from chalicelib import config
from chalicelib.actions.channels.reads.channels import (
    access_stream_by_id,
    access_stream_by_name,
)
from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.messages.reads.recipients import direct_recipient_users
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.lib.narrow import Narrow
from chalicelib.models.channels import Stream, stream_key, user_key
from chalicelib.models.message_flags import MENTION_FLAGS, MessageFlag, UnreadMessage
from chalicelib.models.messages import Message, dm_key, topic_key
from chalicelib.models.topics import topic_sort_key

MAX_BATCH = 5000
UNNARROWED_PAGE_CAP = 10   # Query pages read for the unnarrowed view before giving up
MESSAGES_PER_READ = 100    # BatchGetItem's limit


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


@dataclass
class Target:
    """A narrow with its channel and conversation resolved (and access-checked)."""

    narrow: Narrow
    stream: Stream | None = None
    dm_participants: frozenset[int] | None = None

    def matches(self, message: Message) -> bool:
        narrow = self.narrow
        if narrow.is_dm and message.type != "private":
            return False
        if self.stream is not None and (message.type != "stream"
                                        or message.stream_id != self.stream.stream_id):
            return False
        if narrow.topic is not None and topic_sort_key(message.topic) != topic_sort_key(
                narrow.topic):
            return False
        if self.dm_participants is not None and (
                message.type != "private"
                or frozenset(message.recipient_ids) != self.dm_participants):
            return False
        return narrow.message_id is None or message.message_id == narrow.message_id

    def matches_marker(self, marker: UnreadMessage) -> bool:
        """The same test on an unread marker, which knows where its message is."""
        if self.narrow.is_dm and marker.dm_user_ids is None:
            return False
        if self.stream is not None and marker.stream_id != self.stream.stream_id:
            return False
        if self.narrow.topic is not None and topic_sort_key(marker.topic or "") != \
                topic_sort_key(self.narrow.topic):
            return False
        if self.dm_participants is not None and \
                frozenset(marker.participant_ids) != self.dm_participants:
            return False
        return self.narrow.message_id is None or marker.message_id == self.narrow.message_id


def resolve(caller: Principal, narrow: Narrow) -> Target:
    target = Target(narrow)
    if narrow.channel is not None:
        if isinstance(narrow.channel, int):   # parse_narrow made ids ints, bounded
            target.stream, _ = access_stream_by_id(caller, narrow.channel)
        else:
            target.stream, _ = access_stream_by_name(caller, narrow.channel)
    if narrow.dm is not None:
        operand = narrow.dm if isinstance(narrow.dm, str) else json.dumps(narrow.dm)
        users = direct_recipient_users(caller, operand)
        target.dm_participants = frozenset({u.user_id for u in users} | {caller.user_id})
    return target


def load_messages(realm_id: int, message_ids: list[int]) -> list[Message]:
    """The messages in the order given (BatchGetItem, 100 a request)."""
    found: dict[int, Message] = {}
    for start in range(0, len(message_ids), MESSAGES_PER_READ):
        chunk = message_ids[start:start + MESSAGES_PER_READ]
        found.update((m.message_id, m) for m in Message.batch_get(
            [(realm_id, i) for i in chunk]))
    return [found[i] for i in message_ids if i in found]


def _personal_ids(caller: Principal, target: Target, bound: Bound) -> Iterator[int]:
    """The ids the caller's own rows list for is:unread / is:starred / is:mentioned."""
    key = user_key(caller.realm_id, caller.user_id)
    flag = target.narrow.personal
    if flag == "unread":
        for marker in UnreadMessage.query(key, bound.on(UnreadMessage.message_id),
                                          scan_index_forward=bound.forward):
            if target.matches_marker(marker):
                yield int(marker.message_id)
    elif flag == "starred":
        for row in MessageFlag.starred.query(key, bound.on(MessageFlag.message_id),
                                             scan_index_forward=bound.forward):
            yield int(row.message_id)
    else:
        mentioned = MessageFlag.flags.contains(MENTION_FLAGS[0])
        for name in MENTION_FLAGS[1:]:
            mentioned = mentioned | MessageFlag.flags.contains(name)
        for row in MessageFlag.query(key, bound.on(MessageFlag.message_id),
                                     filter_condition=mentioned,
                                     scan_index_forward=bound.forward):
            yield int(row.message_id)


def _candidates(caller: Principal, target: Target, bound: Bound, limit: int
                ) -> Iterator[Message]:
    narrow = target.narrow
    if narrow.message_id is not None:   # one message: read it, whatever else narrows
        message_id = narrow.message_id
        if bound.admits(message_id):
            yield from load_messages(caller.realm_id, [message_id])
        return
    if narrow.personal is not None:
        ids = _personal_ids(caller, target, bound)
        while chunk := [i for _, i in zip(range(MESSAGES_PER_READ), ids, strict=False)]:
            yield from load_messages(caller.realm_id, chunk)
        return
    condition = bound.on(Message.message_id)
    if target.stream is not None:
        stream_id = target.stream.stream_id
        if narrow.topic is not None:
            if len(narrow.topic) > config.MAX_TOPIC_LENGTH:
                return   # no message has one; a long enough topic would exceed a key's size
            yield from Message.by_topic.query(topic_key(caller.realm_id, stream_id,
                                                        narrow.topic), condition,
                                              scan_index_forward=bound.forward,
                                              limit=limit * 2)
        else:
            yield from Message.by_stream.query(stream_key(caller.realm_id, stream_id),
                                               condition, scan_index_forward=bound.forward,
                                               limit=limit * 2)
        return
    if target.dm_participants is not None:
        yield from Message.by_dm.query(dm_key(caller.realm_id, target.dm_participants),
                                       condition, scan_index_forward=bound.forward,
                                       limit=limit * 2)
        return
    for examined, message in enumerate(Message.query(
            caller.realm_id, condition, scan_index_forward=bound.forward, page_size=200),
            start=1):
        yield message
        if examined >= UNNARROWED_PAGE_CAP * 200:
            return


def fetch(caller: Principal, target: Target, bound: Bound, limit: int,
          access: Access | None = None) -> list[Message]:
    """Up to `limit` readable messages of the narrow on one side of the anchor, nearest
    first."""
    if limit <= 0:
        return []
    access = access or Access(caller)
    found: list[Message] = []
    for message in _candidates(caller, target, bound, limit):
        if target.matches(message) and access.may_read(message):
            found.append(message)
            if len(found) >= limit:
                break
    return found


@dataclass
class MessageRange:
    messages: list[Message]
    anchor: int
    found_anchor: bool
    found_oldest: bool
    found_newest: bool
    access: Access   # what was read to check the messages: their channels, subscriptions


def first_unread_id(caller: Principal, target: Target) -> int | None:
    """The oldest unread message of the narrow, from the caller's markers alone."""
    ids = _personal_ids(caller, Target(Narrow(is_unread=True, channel=target.narrow.channel,
                                              topic=target.narrow.topic,
                                              is_dm=target.narrow.is_dm),
                                       target.stream, target.dm_participants),
                        Bound(">=", 0, forward=True))
    return next(ids, None)


def parse_anchor(anchor: str) -> str | int:
    """`newest`, `oldest`, `first_unread`, or a message id."""
    if anchor in ("newest", "oldest", "first_unread"):
        return anchor
    if not anchor.lstrip("-").isdigit() or len(anchor) > 20:
        raise ApiError("Invalid anchor")
    return int(anchor)


def check_counts(num_before: int, num_after: int, maximum: int = MAX_BATCH) -> None:
    if num_before < 0 or num_after < 0 or num_before > maximum or num_after > maximum:
        raise ApiError(f"num_before and num_after must be between 0 and {maximum}")


def fetch_range(caller: Principal, target: Target, anchor: str | int, include_anchor: bool,
                num_before: int, num_after: int) -> MessageRange:
    """The messages around the anchor (`newest`, `oldest`, `first_unread` or an id)."""
    if anchor == "first_unread":
        unread = first_unread_id(caller, target)
        anchor = unread if unread is not None else "newest"
    access = Access(caller)
    anchor_id: int | None = None
    if anchor == "newest":
        # The newest message is the anchor: it and num_before older ones.
        before = fetch(caller, target, Bound(">=", 0, forward=False), num_before + 1,
                       access)[::-1]
        after: list[Message] = []
        found_anchor, found_newest = bool(before), True
        found_oldest = len(before) < num_before + 1
    elif anchor == "oldest":
        before = []
        after = fetch(caller, target, Bound(">=", 0, forward=True), num_after + 1, access)
        found_anchor, found_oldest = bool(after), True
        found_newest = len(after) < num_after + 1
    else:
        anchor_id = int(anchor)
        # One extra row each way tells whether the history goes on.
        before = fetch(caller, target, Bound("<", anchor_id, forward=False), num_before + 1,
                       access)[::-1]
        found_oldest = len(before) <= num_before
        before = before[-num_before:] if num_before else []
        after = fetch(caller, target, Bound(">=", anchor_id, forward=True), num_after + 2,
                       access)
        found_anchor = bool(after) and after[0].message_id == anchor_id
        found_newest = len(after) < num_after + (2 if found_anchor else 1)
        if found_anchor and not include_anchor:
            after = after[1:]
        after = after[:num_after + (1 if found_anchor and include_anchor else 0)]
    messages = before + after
    if anchor_id is None:
        anchor_id = (messages[-1] if anchor != "oldest" else messages[0]).message_id \
            if messages else 0
    return MessageRange(messages, anchor_id, found_anchor, found_oldest, found_newest,
                        access)
