"""The fan-out's rows of delivered messages, beside fanout/recipients.py: their marks,
the markers restored when a reader changes their mind, the messages as stored now, and
each participant's recent direct conversations."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pynamodb.exceptions import UpdateError

from chalicelib.actions.read_state.reads.pending import new_marker
from chalicelib.delivery.types import EventFacts
from chalicelib.fanout.scope import Scope
from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.channels import user_key
from chalicelib.models.conversations import RecentConversation, conversation_key
from chalicelib.models.message_flags import UnreadMessage, mention_bits
from chalicelib.models.messages import Message

DELIVERY_STEP = "recipients"


@dataclass
class Delivery:
    """A new message the fan-out delivers, and its recipients' flags."""

    outbox_id: str
    realm_id: int
    message_id: int
    flags: dict[int, set[str]]   # every recipient's flags (of the scope's range)
    event: dict[str, Any] = field(default_factory=dict)
    facts: EventFacts = field(default_factory=EventFacts)


def restorer(delivery: Delivery, messages: dict[tuple[int, int], Message],
             flags_of: Callable[[Delivery, int], set[str] | None]
             ) -> Callable[[int], UnreadMessage | None]:
    """The marker of one of the message's recipients, to restore."""
    def marker_of(user_id: int) -> UnreadMessage | None:
        message = messages.get((delivery.realm_id, delivery.message_id))
        flags = flags_of(delivery, user_id)
        if message is None or flags is None or "read" in flags:
            return None
        return new_marker(delivery.realm_id, user_id, message, mention_bits(flags))
    return marker_of


def delivery_mark(outbox_id: str) -> str:
    """The FanoutMark of a record whose recipients' rows are complete."""
    return f"{DELIVERY_STEP}:{outbox_id}"


def current_messages(deliveries: list[Delivery]) -> dict[tuple[int, int], Message]:
    """The delivered messages as stored now, by (realm, id): one consistent batched read."""
    return {(m.realm_id, m.message_id): m for m in Message.batch_get(
        [(d.realm_id, d.message_id) for d in deliveries], consistent_read=True,
        attributes_to_get=["realm_id", "message_id", "type", "sender_id", "stream_id",
                           "topic", "recipient_ids"])}


def raise_conversations(realm_id: int, message: Message, scope: Scope) -> None:
    """Each participant's (of the scope's range) conversation now has this message; a
    late or repeated delivery never lowers the latest id (the update is conditioned
    on it)."""
    key = conversation_key(message.recipient_ids)
    for user_id in sorted(u for u in set(message.recipient_ids) if scope.has(u)):
        item = RecentConversation(user_key(realm_id, user_id), key)
        try:
            item.update(actions=[RecentConversation.max_message_id.set(message.message_id)],
                        condition=RecentConversation.max_message_id.does_not_exist()
                        | (RecentConversation.max_message_id < message.message_id))
        except UpdateError as error:
            if not is_write_condition_failure(error):
                raise
