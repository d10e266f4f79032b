"""Historical rows: a message the user did not receive (a channel's history they read)
becomes theirs when they star it, collapse it, mark it unread or react to it, as the
reference creates a historical row then. The row gets the flag `historical` and the key
of the rows' sparse index; written before the change it comes with, and idempotent, so
a change that fails leaves at most rows that a retry writes again."""
from __future__ import annotations

from collections.abc import Iterable

from pynamodb.expressions.update import Action

from chalicelib.models.base import MAX_TRANSACTION_ITEMS, transaction
from chalicelib.models.channels import user_key
from chalicelib.models.message_flags import MessageFlag
from chalicelib.models.messages import Message, topic_key

HISTORICAL = "historical"


def mark_historical(realm_id: int, user_id: int, messages: Iterable[Message]) -> None:
    """Gives each of these messages (none of which the user received) a historical row:
    transactions of up to 100 updates."""
    key = user_key(realm_id, user_id)
    pending = sorted(messages, key=lambda m: m.message_id)
    for start in range(0, len(pending), MAX_TRANSACTION_ITEMS):
        with transaction() as tx:
            for message in pending[start:start + MAX_TRANSACTION_ITEMS]:
                actions: list[Action] = [MessageFlag.flags.add({HISTORICAL}),
                           MessageFlag.historical_key.set(key)]
                if message.type == "stream":
                    actions.append(MessageFlag.topic_key.set(topic_key(
                        realm_id, int(message.stream_id), message.topic)))
                tx.update(MessageFlag(key, message.message_id), actions=actions)
