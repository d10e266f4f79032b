"""What edits, moves and deletions change in recipients' stored state (the fan-out's
recipient step, fanout/recipients.py): mention flags gained or lost, the flag rows of
moved or deleted messages, deleted messages' unread markers."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.update import Action

from chalicelib.actions.read_state.markers import mark_read
from chalicelib.actions.read_state.reads.pending import WILDCARD_FLAGS
from chalicelib.delivery.types import MentionChange
from chalicelib.models.base import is_write_condition_failure, update_existing
from chalicelib.models.channels import user_key
from chalicelib.models.message_flags import (
    MENTION_FLAGS,
    MessageFlag,
    UnreadMessage,
    mention_bits,
)
from chalicelib.models.messages import Message, message_place, topic_key


def flag_changes(change: MentionChange, users: set[int]
                 ) -> dict[int, tuple[set[str], set[str]]]:
    """(flags added, flags removed) per user, among `users`, for an edit's mentions."""
    before, after = change["before"], change["after"]
    was, now = set(before["users"]), set(after["users"])
    old_wildcard = WILDCARD_FLAGS.get(before["wildcard"] or "")
    new_wildcard = WILDCARD_FLAGS.get(after["wildcard"] or "")
    changes: dict[int, tuple[set[str], set[str]]] = defaultdict(lambda: (set(), set()))
    for user_id in (now - was) & users:
        changes[user_id][0].add("mentioned")
    for user_id in (was - now) & users:
        changes[user_id][1].add("mentioned")
    if old_wildcard != new_wildcard:
        for user_id in users:
            if new_wildcard:
                changes[user_id][0].add(new_wildcard)
            if old_wildcard:
                changes[user_id][1].add(old_wildcard)
    return changes


def flag_rows_in(key: str, message_ids: set[int]) -> list[MessageFlag]:
    """Everyone's flag rows of these messages of one topic (its index, one id range)."""
    if not message_ids:
        return []
    return [row for row in MessageFlag.by_topic.query(
        key, MessageFlag.message_id.between(min(message_ids), max(message_ids)))
        if int(row.message_id) in message_ids]


def deletion_of(message: Message) -> tuple[dict[str, Any], list[int]]:
    """What `forget_deleted` reads of a delete_message record (the event and the
    participants), for one message as written."""
    if message.type == "stream":
        return {"message_ids": [message.message_id], "message_type": "stream",
                "stream_id": message.stream_id, "topic": message.topic}, []
    return {"message_ids": [message.message_id], "message_type": "private"}, list(
        message.recipient_ids)


def forget_deleted(realm_id: int, event: dict[str, Any], participants: list[int]) -> None:
    """Deletes the unread markers and flag rows of deleted messages (no events: clients
    drop a deleted message from their unread counts and stars by themselves); a direct
    message's are its `participants`'."""
    gone = {int(i) for i in event.get("message_ids", [])}
    if event.get("message_type") == "stream":
        key = topic_key(realm_id, int(event["stream_id"]), str(event.get("topic", "")))
        markers: list[Any] = [m for m in UnreadMessage.by_topic.query(key)
                              if int(m.message_id) in gone]
        rows: list[Any] = flag_rows_in(key, gone)
    else:
        keys = [(user_key(realm_id, int(u)), i) for u in participants for i in sorted(gone)]
        markers = [UnreadMessage(*k) for k in keys]
        rows = [MessageFlag(*k) for k in keys]
    with UnreadMessage.batch_write() as unread, MessageFlag.batch_write() as flags:
        for marker in markers:
            unread.delete(marker)
        for row in rows:
            flags.delete(row)


def change_lasting_flags(realm_id: int, user_id: int, message: Message, added: set[str],
                         removed: set[str]) -> None:
    """Adds and removes derived flags on the user's row, and keeps the unread marker's
    mention bits in step (only if the marker still exists)."""
    key, message_id = user_key(realm_id, user_id), message.message_id
    actions: list[Action] = []
    if added - removed:
        actions.append(MessageFlag.flags.add(added - removed))
        place = message_place(realm_id, message)
        if place is not None:
            actions.append(MessageFlag.topic_key.set(place))
    if removed - added:
        actions.append(MessageFlag.flags.delete(removed - added))
    if not actions:
        return
    row = MessageFlag(key, message_id)
    row.update(actions=actions)   # refreshes `row` with the stored flags
    flags = set(row.flags or ())
    try:
        UnreadMessage(key, message_id).update(
            actions=[UnreadMessage.mentions.set(mention_bits(flags & set(MENTION_FLAGS)))],
            condition=UnreadMessage.message_id.exists())
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise   # else read meanwhile: no marker to keep in step


Readers = Callable[[int, int, int], set[int]]   # (realm, channel, message) -> who reads it


def apply_move(realm_id: int, event: dict[str, Any], readers: Readers) -> None:
    """A move's recipients' state: the moved messages' flag rows and unread markers
    follow them to their new topic."""
    old_stream = int(event["stream_id"])
    moved = {int(i) for i in event["message_ids"]}
    old_key = topic_key(realm_id, old_stream, str(event["orig_subject"]))
    new_key = topic_key(realm_id, int(event.get("new_stream_id", old_stream)),
                        str(event.get("subject", event["orig_subject"])))
    if new_key != old_key:
        rows = flag_rows_in(old_key, moved)
        update_existing([(row, [MessageFlag.topic_key.set(new_key)]) for row in rows],
                        MessageFlag.message_id.exists())
    markers = [m for m in UnreadMessage.by_topic.query(old_key) if int(m.message_id) in moved]
    if not markers:
        return
    messages = {m.message_id: m for m in Message.batch_get(
        [(realm_id, i) for i in sorted({int(m.message_id) for m in markers})],
        consistent_read=True)}
    relocate(realm_id, [(marker, messages[int(marker.message_id)]) for marker in markers
                        if int(marker.message_id) in messages
                        and messages[int(marker.message_id)].type == "stream"], readers)


def relocate(realm_id: int, placed: list[tuple[UnreadMessage, Message]],
             readers: Readers) -> None:
    """Moves each marker to where its message is now; users who cannot read it there
    (not subscribed) get it marked read instead, with one update_message_flags event
    per batch of their messages."""
    losing: dict[int, list[UnreadMessage]] = defaultdict(list)
    updates: list[tuple[UnreadMessage, list[Action]]] = []
    for marker, message in placed:
        if marker.user_id not in readers(realm_id, int(message.stream_id), message.message_id):
            losing[int(marker.user_id)].append(marker)
            continue
        if (marker.stream_id, marker.topic) == (message.stream_id, message.topic):
            continue
        new_key = topic_key(realm_id, int(message.stream_id), message.topic)
        updates.append((marker, [UnreadMessage.stream_id.set(message.stream_id),
                                 UnreadMessage.topic.set(message.topic),
                                 UnreadMessage.topic_key.set(new_key)]))
    update_existing(updates, UnreadMessage.message_id.exists())
    for user_id, lost in losing.items():
        mark_read(realm_id, user_id, lost)
