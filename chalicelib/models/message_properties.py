"""The sparse `has:` index: one row per message that has a link, an attachment, an image
or a reaction, or is in a resolved topic (`is:resolved`), under (realm, property) and
ordered by message id; none for the others.

Rows are written in the transaction that gives or takes the property (send, a content
edit, the first reaction and the removal of the last, a move that resolves or
unresolves the topic) and deleted after a message's deletion commits; a row left over
(a crash between the two, a lost race of the backfill) names a message that lacks the
property or no longer exists, which a read skips: the narrow's evaluator checks every
candidate. A missing row would hide a message, so no writer removes a row it has not
seen to be wrong in the same transaction.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta
from chalicelib.models.messages import Message
from chalicelib.rules.message_properties import (
    PROPERTIES,
    content_properties,
    is_resolved_topic,
)


def property_key(realm_id: int, name: str) -> str:
    """A property's partition: the realm first, so realms never share one."""
    return f"{realm_id}#{name}"


class MessageProperty(BaseModel):
    """One message with one property; holds nothing but its keys (who may read the
    message is decided when reading)."""

    Meta = table_meta("message_properties")
    property_key = UnicodeAttribute(hash_key=True)   # property_key(realm_id, name)
    message_id = IntegerAttribute(range_key=True)


def add_property_changes(tx: Any, realm_id: int, message_id: int, before: Iterable[str],
                         after: Iterable[str]) -> int:
    """Puts the rows of properties gained, deletes those of properties lost, in `tx`;
    returns the number of items added to the transaction."""
    old, new = set(before), set(after)
    for name in sorted(new - old):
        tx.save(MessageProperty(property_key(realm_id, name), message_id))
    for name in sorted(old - new):
        tx.delete(MessageProperty(property_key(realm_id, name), message_id))
    return len(new ^ old)


def stored_properties(message: Message) -> frozenset[str]:
    """The properties a stored message has now (content, reactions, resolved topic)."""
    return content_properties(message.content, message.rendered_content) | (
        {"reaction"} if message.reaction_map() else frozenset()) | (
        {"resolved"} if message.type == "stream" and is_resolved_topic(message.topic)
        else frozenset())


def forget_properties(realm_id: int, messages: Iterable[Message]) -> None:
    """Deletes the rows of messages whose deletion committed (BatchWriteItem, 25 a
    request); every property row is deleted, so a reaction added after the message was
    read leaves nothing behind either."""
    with MessageProperty.batch_write() as batch:
        for message in messages:
            for name in PROPERTIES:
                batch.delete(MessageProperty(property_key(realm_id, name), message.message_id))
