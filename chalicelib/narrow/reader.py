"""The reader's topic and channel settings that `is:followed` and `is:muted` read (two
Queries), for GET /messages and for event queues alike."""
from __future__ import annotations

from chalicelib.models.channels import Subscription, user_key
from chalicelib.models.topics import FOLLOWED, MUTED, UNMUTED, UserTopic, topic_sort_key
from chalicelib.narrow.evaluate import ReaderContext
from chalicelib.narrow.types import Narrow

SETTINGS_OPERANDS = frozenset({"followed", "muted"})


def needs_settings(narrow: Narrow) -> bool:
    return any(t.operator == "is" and t.operand in SETTINGS_OPERANDS for t in narrow.terms)


def reader_context(realm_id: int, user_id: int) -> ReaderContext:
    """The user's followed, muted and unmuted topics and muted channels."""
    key = user_key(realm_id, user_id)
    policies: dict[int, set[tuple[int, str]]] = {FOLLOWED: set(), MUTED: set(), UNMUTED: set()}
    for item in UserTopic.query(key):
        policies.setdefault(item.visibility_policy, set()).add(
            (int(item.stream_id), topic_sort_key(item.topic_name)))
    muted_channels = frozenset(int(s.stream_id) for s in Subscription.query(key)
                               if s.active and s.is_muted)
    return ReaderContext(user_id, frozenset(policies[FOLLOWED]), frozenset(policies[MUTED]),
                         frozenset(policies[UNMUTED]), muted_channels)
