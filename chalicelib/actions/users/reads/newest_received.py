"""`max_message_id` (GET /users/me, POST /register): the newest message the caller
received, as the reference gives it, never the organization's newest (which moved with
every message in channels and conversations the caller is not part of).

The newest of: each channel the caller is subscribed to, from its `last_message_id`
(one BatchGetItem per 100 subscriptions; a channel without one, last written before the
attribute existed, is one single-item Query of its messages), counted only if the
caller may read it (a protected-history channel's last message may predate them); and
their direct conversations (one Query of their own conversation items). What it costs
follows the caller's subscriptions and conversations, never the organization's size.
"""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream, Subscription, stream_key, user_key
from chalicelib.models.conversations import RecentConversation
from chalicelib.models.messages import Message

NONE_RECEIVED = -1   # the reference's answer for a user who received nothing


def newest_received_id(caller: Principal,
                       subscriptions: Iterable[Subscription] | None = None) -> int:
    """The newest message id the caller received; `subscriptions`: their subscription
    items if already read (one Query otherwise)."""
    key = user_key(caller.realm_id, caller.user_id)
    items = Subscription.query(key) if subscriptions is None else subscriptions
    first_visible = {s.stream_id: int(s.first_visible_message_id or 0) for s in items
                     if s.active}
    newest = NONE_RECEIVED
    for stream in Stream.batch_get([(caller.realm_id, i) for i in sorted(first_visible)]):
        last = _last_message_id(stream)
        if last is not None and last >= first_visible[stream.stream_id]:
            newest = max(newest, last)
    for conversation in RecentConversation.query(key):
        newest = max(newest, int(conversation.max_message_id))
    return newest


def _last_message_id(stream: Stream) -> int | None:
    if stream.last_message_id is not None:
        return int(stream.last_message_id)
    latest = next(iter(Message.by_stream.query(stream_key(stream.realm_id, stream.stream_id),
                                               scan_index_forward=False, limit=1)), None)
    return None if latest is None else latest.message_id
