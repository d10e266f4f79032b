"""Which messages a caller received: the reference's per-user rows, here worked out from
what is stored already, so nothing is written per recipient beyond the read state.

- A direct message: its participants received it.
- A channel message: the channel's subscribers when it was sent. A subscription holds
  the first id sent since it began (`first_visible_message_id`) and, after leaving, the
  ids of its earlier periods (`received_ranges`), so a message's id tells whether it came
  in one of the caller's periods (models/channels.py `Subscription.has_received`).
- A message the caller gave a flag or a reaction to without receiving it: their
  historical row (read_state/reads/historical.py), as the reference keeps one.

The subscriptions come from `Access` (read once per channel for the access check), so a
page of candidates costs nothing more, except one keys-only Query of historical rows over
the page's ids when some of its channel messages lie outside every period.
"""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.read_state.reads.historical import historical_ids
from chalicelib.models.messages import Message


def in_a_period(access: Access, message: Message) -> bool:
    """Received as a participant or as a subscriber (the channel read into `access`)."""
    if message.type == "private":
        return access.caller.user_id in message.recipient_ids
    subscription = access.history.get(int(message.stream_id))
    return subscription is not None and subscription.has_received(message.message_id)


def received_among(access: Access, messages: list[Message]) -> list[Message]:
    """Those of the messages the caller received, in their order."""
    access.load(messages)
    outside = [m.message_id for m in messages if not in_a_period(access, m)]
    if not outside:
        return messages
    historical = historical_ids(access.caller.realm_id, access.caller.user_id,
                                min(outside), max(outside))
    left = set(outside) - historical
    return [m for m in messages if m.message_id not in left]


def not_received(access: Access, messages: Iterable[Message]) -> list[Message]:
    """Those of the messages the caller did not receive (they may read them: a channel's
    history)."""
    listed = list(messages)
    kept = {m.message_id for m in received_among(access, listed)}
    return [m for m in listed if m.message_id not in kept]

