"""Deleting messages: DELETE /messages/{id}, and the batch writer topic deletion shares.

A batch of one conversation's messages is deleted in one transaction with everything that
follows from it: each message conditioned on the version that was read (an edit
meanwhile makes the batch read again), the upload links those messages held, the
delete_message event to everyone who could read them (and the actor), and, when the
channel's first message goes, the channel's new first_message_id with its stream event.
The topic list's entry and the has: index rows are brought in step afterwards.

The delete_message outbox record carries the deleted ids with their channel and topic
(or the direct conversation's participants as its audience), which is all that state
derived from messages needs to forget them.
"""
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.channels.reads.permissions import holds_channel_permission
from chalicelib.actions.channels.topics import forget_topic_messages
from chalicelib.actions.channels.update import StreamUpdateEvent
from chalicelib.actions.groups.reads.settings import caller_has_realm_permission
from chalicelib.actions.messages.reads.access import AccessedMessage, access_message
from chalicelib.actions.messages.reads.audience import readers_audience
from chalicelib.actions.messages.uploads import plan_deleted_links, upload_path_ids
from chalicelib.aws.aws_errors import best_effort
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import Audience, add_event
from chalicelib.delivery.types import EventFacts
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channels import Stream, stream_key
from chalicelib.models.message_properties import forget_properties
from chalicelib.models.messages import Message
from chalicelib.models.races import LostRace, retry_lost_races
from chalicelib.models.realms import Realm, empty_topic_display_name, get_realm, realm_setting
from chalicelib.models.users import User
from chalicelib.rules.timeutil import now_seconds

NO_PERMISSION = "You are not allowed to delete this message"
# Besides its messages and their upload links, a batch writes the delete event and, at
# most, the channel's first_message_id and its stream event.
RESERVED_ITEMS = 3


class DeleteMessageEvent(TypedDict):
    """delete_message for clients with bulk_message_deletion (delivery/filters.py derives
    the one-per-message form for the others)."""

    type: Literal["delete_message"]
    message_ids: list[int]
    message_type: Literal["stream", "private"]
    stream_id: NotRequired[int]
    topic: NotRequired[str]


class DeleteMessageResult(TypedDict):
    pass


def delete_message_event(message_ids: list[int], stream_id: int | None, topic: str,
                         realm: Realm) -> tuple[DeleteMessageEvent, EventFacts]:
    """The event, and what the fan-out needs for clients without empty_topic_name."""
    event: DeleteMessageEvent = {"type": "delete_message", "message_ids": sorted(message_ids),
                                 "message_type": "private"}
    if stream_id is None:
        return event, {}
    event["message_type"], event["stream_id"], event["topic"] = "stream", stream_id, topic
    return event, {"empty_topic_display_name": empty_topic_display_name(realm)}


def check_delete_message(caller: Principal, message_id: int) -> DeleteMessageResult:
    realm = get_realm(caller.realm_id)
    def attempt() -> DeleteMessageResult:
        accessed = access_message(caller, message_id, modifying=True)
        check_delete_permission(caller, realm, accessed)
        if not delete_messages(realm, accessed.stream, [accessed.message], caller.user_id):
            # Changed since it was read (edited, or deleted: access then says so).
            raise LostRace()
        forget_deleted(realm, accessed.stream, [accessed.message])
        return {}

    return retry_lost_races(
        attempt, conflict="The message kept changing while being deleted; try again.")


def check_delete_permission(caller: Principal, realm: Realm, accessed: AccessedMessage
                            ) -> None:
    """The organization's (or the channel's) delete-any group; else the sender (or the
    owner of the bot that sent it) in a delete-own group, within the time limit."""
    def allowed(setting: str) -> bool:
        return caller_has_realm_permission(realm, caller.user_id, caller.role, setting) or (
            accessed.stream is not None
            and holds_channel_permission(caller, accessed.stream, setting))

    message = accessed.message
    if allowed("can_delete_any_message_group"):
        return
    if message.sender_id != caller.user_id:
        sender = User.get_or_none(caller.realm_id, message.sender_id, consistent_read=False)
        if sender is None or sender.bot_owner_id != caller.user_id:
            raise ApiError(NO_PERMISSION)
    if not allowed("can_delete_own_message_group"):
        raise ApiError(NO_PERMISSION)
    limit = realm_setting(realm, "message_content_delete_limit_seconds")
    if limit is not None and now_seconds() - int(message.date_sent) > int(limit):
        raise ApiError("This message is too old for you to delete")


def delete_messages(realm: Realm, stream: Stream | None, messages: list[Message],
                    actor_id: int) -> bool:
    """Deletes one conversation's messages (at most MAX_TRANSACTION_ITEMS less their
    links and RESERVED_ITEMS) in one transaction; False if any changed since read."""
    ids = [m.message_id for m in messages]
    links = plan_deleted_links(realm.realm_id, messages)
    audience = readers_audience(realm.realm_id, messages, stream, actor_id)
    event, facts = delete_message_event(ids, stream.stream_id if stream else None,
                                        messages[0].topic, realm)
    if stream is None:   # for the fan-out, which clears the participants' read state
        facts["participants"] = sorted(messages[0].recipient_ids)
    try:
        with transaction() as tx:
            for message in messages:
                tx.delete(Message(message.realm_id, message.message_id),
                          condition=Message.version == message.version)
            links.apply(tx)
            add_event(tx, realm.realm_id, event, audience, facts)
            if stream is not None and stream.first_message_id in ids:
                _move_first_message_id(tx, realm.realm_id, stream, set(ids), audience)
    except TransactWriteError as error:
        if is_condition_failure(error):
            return False
        raise
    return True


def link_items_at_most(messages: list[Message]) -> int:
    """Transaction items the messages' upload links can take (for sizing batches): one
    per upload their contents link, without reading whether each still exists."""
    return len({p for m in messages for p in upload_path_ids(m.content)})


def forget_deleted(realm: Realm, stream: Stream | None, messages: list[Message]) -> None:
    """What follows a committed deletion outside its transaction: the has: index rows
    (a row left by a failure here names a missing message, which reads skip) and the
    topic list."""
    best_effort(lambda: forget_properties(realm.realm_id, messages), "has: index rows")
    if stream is not None:
        forget_topic_messages(realm.realm_id, stream.stream_id, messages[0].topic,
                              {m.message_id for m in messages})


def _move_first_message_id(tx: Any, realm_id: int, stream: Stream, gone: set[int],
                           audience: Audience) -> None:
    """The channel's oldest message that remains, conditioned on the value read."""
    remaining = (m.message_id for m in Message.by_stream.query(
        stream_key(realm_id, stream.stream_id), scan_index_forward=True,
        limit=len(gone) + 1, attributes_to_get=["realm_id", "message_id"])
        if m.message_id not in gone)
    first = next(remaining, None)
    action = Stream.first_message_id.set(first) if first is not None else \
        Stream.first_message_id.remove()
    tx.update(Stream(realm_id, stream.stream_id), actions=[action],
              condition=Stream.first_message_id == stream.first_message_id)
    event: StreamUpdateEvent = {"type": "stream", "op": "update",
                                "property": "first_message_id", "value": first,
                                "stream_id": stream.stream_id, "name": stream.name}
    add_event(tx, realm_id, event, audience)

