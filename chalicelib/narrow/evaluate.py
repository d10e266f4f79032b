"""The one test of a message against a narrow, for every caller: a message read from
the table (GET /messages, flags by narrow, matches_narrow) or carried by an event
(event queues registered with a narrow).

The test reads only `MessageFacts` (what the message says, plus the reader's flags when
the narrow needs them) and the reader's `ReaderContext` (topics followed or muted,
channels muted), so it makes no request of its own.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from chalicelib.models.message_flags import MENTION_FLAGS
from chalicelib.models.topics import topic_sort_key
from chalicelib.narrow.types import Narrow, Term
from chalicelib.rules.message_properties import has_property, is_resolved_topic

FLAG_OPERANDS = frozenset({"starred", "mentioned", "alerted", "unread"})
GROUP_SIZE = 3   # participants of the smallest group conversation (the reader included)
USER_OPERATORS = frozenset({"dm", "dm-including", "group-pm-with", "sender", "mentions"})


@dataclass(frozen=True)
class MessageFacts:
    """What a narrow can ask of one message."""

    message_id: int
    is_channel: bool
    stream_id: int | None
    channel_name: str | None        # known from an event; None when read from the table
    channel_public: bool | None     # None: not known here
    channel_web_public: bool | None
    topic: str
    sender_id: int
    sender_email: str | None
    participants: frozenset[int]    # direct messages: everyone in the conversation
    content: str                    # raw Markdown ("" if not known)
    rendered_content: str
    has_reactions: bool
    flags: frozenset[str] | None    # the reader's flags; None when not read


@dataclass(frozen=True)
class ReaderContext:
    """The reader, and the topic and channel settings the `is:` operators read."""

    user_id: int
    followed_topics: frozenset[tuple[int, str]] = frozenset()   # (stream_id, sort key)
    muted_topics: frozenset[tuple[int, str]] = frozenset()
    unmuted_topics: frozenset[tuple[int, str]] = frozenset()
    muted_channels: frozenset[int] = frozenset()


# The search test used when candidates did not come from the search index (one
# message at a time); None skips search terms (the index already applied them).
SearchTest = Callable[[str, MessageFacts], bool]


@dataclass(frozen=True)
class Evaluator:
    narrow: Narrow
    reader: ReaderContext
    search_test: SearchTest | None = field(default=None)
    # Whether the narrow reads messages the reader did not receive (narrow/history.py);
    # the reader of the messages applies it, the test here is the same either way.
    include_history: bool = field(default=False)

    @property
    def needs_flags(self) -> bool:
        return any(t.operator == "is" and t.operand in FLAG_OPERANDS for t in self.narrow.terms)

    @property
    def needs_channels(self) -> bool:
        return any(t.operator == "channels" for t in self.narrow.terms)

    def matches(self, facts: MessageFacts) -> bool:
        return all(self._holds(term, facts) != term.negated for term in self.narrow.terms)

    def _holds(self, term: Term, m: MessageFacts) -> bool:
        op, operand = term.operator, term.operand
        if op == "channel":
            if not m.is_channel:
                return False
            if isinstance(operand, int):
                return m.stream_id == operand
            return m.channel_name is not None and m.channel_name.lower() == str(
                operand).lower()
        if op == "channels":
            if not m.is_channel:
                return False
            return bool(m.channel_web_public if operand == "web-public" else m.channel_public)
        if op == "topic":
            return m.is_channel and topic_sort_key(m.topic) == topic_sort_key(str(operand))
        if op in USER_OPERATORS:
            return self._user_term(term, m)
        if op == "id":
            return m.message_id == operand
        if op in ("near", "with"):
            return True   # positions (near) or already replaced by the conversation (with)
        if op == "is":
            return self._is(str(operand), m)
        if op == "has":
            return _has(str(operand), m)
        # search
        return self.search_test is None or self.search_test(str(operand), m)

    def _user_term(self, term: Term, m: MessageFacts) -> bool:
        op, operand = term.operator, term.operand
        if op == "dm":
            wanted = self._user_ids(operand) | {self.reader.user_id}
            return not m.is_channel and m.participants == wanted
        if op == "dm-including":
            return not m.is_channel and self._is_user(operand, m, m.participants)
        if op == "group-pm-with":   # group conversations only: three people or more
            return not m.is_channel and len(m.participants) >= GROUP_SIZE and \
                self._is_user(operand, m, m.participants)
        if op == "sender":
            return self._is_user(operand, m, frozenset({m.sender_id}))
        # mentions
        return isinstance(operand, int) and visibly_mentions(m.rendered_content, operand)

    def _user_ids(self, operand: object) -> frozenset[int]:
        items = operand if isinstance(operand, tuple) else (operand,)
        return frozenset(self.reader.user_id if i == "me" else i for i in items
                         if isinstance(i, int) or i == "me")

    def _is_user(self, operand: object, m: MessageFacts, ids: frozenset[int]) -> bool:
        if operand == "me":
            return self.reader.user_id in ids
        if isinstance(operand, int):
            return operand in ids
        # An email not resolved to an id (only in events): the sender's is known.
        return m.sender_email is not None and ids == {m.sender_id} and \
            m.sender_email.lower() == str(operand).lower()

    def _is(self, operand: str, m: MessageFacts) -> bool:
        flags = m.flags or frozenset()
        if operand == "dm":
            return not m.is_channel
        if operand == "starred":
            return "starred" in flags
        if operand == "mentioned":
            return bool(flags & set(MENTION_FLAGS))
        if operand == "alerted":
            return "has_alert_word" in flags
        if operand == "unread":
            return m.flags is not None and "read" not in flags
        if operand == "resolved":
            return m.is_channel and is_resolved_topic(m.topic)
        if not m.is_channel or m.stream_id is None:
            return False
        key = (m.stream_id, topic_sort_key(m.topic))
        if operand == "followed":
            return key in self.reader.followed_topics
        # muted: a muted topic, or a muted channel's topic that is not unmuted/followed
        if key in self.reader.muted_topics:
            return True
        return m.stream_id in self.reader.muted_channels and not (
            key in self.reader.unmuted_topics or key in self.reader.followed_topics)


def visibly_mentions(rendered_content: str, user_id: int) -> bool:
    """A direct mention of the user that notifies them (not a silent one, not a group or
    a wildcard), as rules/markdown.py renders it."""
    return f'<span class="user-mention" data-user-id="{user_id}">' in rendered_content


def _has(operand: str, m: MessageFacts) -> bool:
    return has_property(operand, m.content, m.rendered_content, m.has_reactions)
