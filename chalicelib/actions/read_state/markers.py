"""Reading and changing a user's message flags, a batch at a time, each batch with its event.

A change of flags is written in transactions of at most `FLAGS_PER_TRANSACTION` items
plus the `update_message_flags` event, so an event exists iff its change committed.
Every item is conditioned on the state that was read (a marker that exists, a flag
that is absent, ...): the `messages` of each event are exactly the messages whose flag
changed, even when two clients change the same flags at once.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from chalicelib.actions.read_state.pending import read_in_flight
from chalicelib.actions.read_state.reads.flags import flag_rows, unread_markers
from chalicelib.actions.read_state.reads.pending import (
    Recipient,
    new_marker,
    pending_of,
    unread_in_flight,
)
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.base import (
    MAX_TRANSACTION_ITEMS,
    cancellation_reasons,
    transaction,
)
from chalicelib.models.channels import user_key
from chalicelib.models.message_flags import (
    MENTION_BITS,
    MessageFlag,
    UnreadMessage,
    mention_bits,
)
from chalicelib.models.messages import Message
from chalicelib.models.pending_deliveries import PendingDelivery
from chalicelib.models.races import LostRace, retry_lost_races

# One item per message plus the event: the most a transaction holds.
FLAGS_PER_TRANSACTION = MAX_TRANSACTION_ITEMS - 1
MAX_ATTEMPTS = 5


class UnreadMessageDetails(TypedDict):
    """What a client needs to put a message marked unread back into its unread_msgs."""

    type: Literal["stream", "private"]
    mentioned: NotRequired[bool]
    user_ids: NotRequired[list[int]]
    stream_id: NotRequired[int]
    topic: NotRequired[str]


class UpdateMessageFlagsAddEvent(TypedDict):
    type: Literal["update_message_flags"]
    op: Literal["add"]
    operation: Literal["add"]
    flag: str
    messages: list[int]
    all: bool


class UpdateMessageFlagsRemoveEvent(TypedDict):
    type: Literal["update_message_flags"]
    op: Literal["remove"]
    operation: Literal["remove"]
    flag: str
    messages: list[int]
    all: bool
    message_details: NotRequired[dict[str, UnreadMessageDetails]]


# ---- reading --------------------------------------------------------------------------

def _chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def marker_details(marker: UnreadMessage, user_id: int) -> UnreadMessageDetails:
    """`message_details` of an update_message_flags remove event, from the marker."""
    details: UnreadMessageDetails
    if marker.stream_id is not None:
        details = {"type": "stream", "stream_id": int(marker.stream_id),
                   "topic": marker.topic or ""}
    else:
        details = {"type": "private",
                   "user_ids": [u for u in marker.participant_ids if u != user_id]}
    if marker.mentions & MENTION_BITS["mentioned"]:
        details["mentioned"] = True
    return details


# ---- writing --------------------------------------------------------------------------

@dataclass
class FlagChange:
    """One message's change: `write` adds its item (with its condition) to a transaction."""

    message_id: int
    write: Callable[[TransactWrite], None]


def commit_flag_changes(realm_id: int, user_id: int, flag: str, op: Literal["add", "remove"],
                        changes: list[FlagChange],
                        reread: Callable[[list[int]], list[FlagChange]],
                        details: dict[int, UnreadMessageDetails] | None = None,
                        all_messages: bool = False) -> list[int]:
    """Writes the changes in transactions, each with its event; returns the ids changed.

    A transaction cancelled because some item's condition failed (another client got
    there first) is retried with the changes `reread` still finds necessary.
    """
    changed: list[int] = []
    for chunk in _chunks(changes, FLAGS_PER_TRANSACTION):
        batch = chunk
        def attempt() -> None:
            nonlocal batch
            if not batch:
                return
            try:
                with transaction() as tx:
                    for change in batch:
                        change.write(tx)
                    add_event(tx, realm_id, flags_event(
                        flag, op, [c.message_id for c in batch], details, all_messages),
                              to_users([user_id]))
            except TransactWriteError as error:
                # Any item's cancellation (its condition, or a concurrent transaction).
                if not any(cancellation_reasons(error)):
                    raise
                batch = reread([c.message_id for c in batch])
                raise LostRace() from None
            changed.extend(c.message_id for c in batch)

        retry_lost_races(attempt, conflict="The message flags kept changing; try again.",
                         attempts=MAX_ATTEMPTS)
    return sorted(changed)


def flags_event(flag: str, op: Literal["add", "remove"], message_ids: list[int],
                details: dict[int, UnreadMessageDetails] | None = None,
                all_messages: bool = False
                ) -> UpdateMessageFlagsAddEvent | UpdateMessageFlagsRemoveEvent:
    """`all_messages`: mark_all_as_read's form, which lists no messages (as the
    reference: the client marks everything it has read)."""
    ids = sorted(message_ids)
    if op == "add":
        return {"type": "update_message_flags", "op": "add", "operation": "add", "flag": flag,
                "messages": [] if all_messages else ids, "all": all_messages}
    event: UpdateMessageFlagsRemoveEvent = {
        "type": "update_message_flags", "op": "remove", "operation": "remove", "flag": flag,
        "messages": ids, "all": False}
    if flag == "read":
        event["message_details"] = {str(i): (details or {})[i] for i in ids
                                    if i in (details or {})}
    return event


def mark_ids_read(realm_id: int, user_id: int, message_ids: Iterable[int]) -> list[int]:
    """Marks these messages read for the user: deletes the unread markers there are, and
    records the reader on those the fan-out has not reached."""
    ids = list(message_ids)
    in_flight = unread_in_flight(Recipient(realm_id, user_id), message_ids=ids)
    early = {m.message_id for m, _ in in_flight}
    markers = unread_markers(realm_id, user_id, [i for i in ids if i not in early])
    return mark_read(realm_id, user_id, list(markers.values()), in_flight)


def mark_channel_read(realm_id: int, user_id: int, stream_id: int) -> list[int]:
    """Marks every message of the channel read for the user (from their own markers, and
    the channel's messages in flight)."""
    in_flight = unread_in_flight(Recipient(realm_id, user_id),
                                 lambda m: m.type == "stream" and m.stream_id == stream_id)
    markers = list(UnreadMessage.query(user_key(realm_id, user_id),
                                       filter_condition=UnreadMessage.stream_id == stream_id))
    return mark_read(realm_id, user_id, markers, in_flight)


def mark_read(realm_id: int, user_id: int, markers: list[UnreadMessage],
              in_flight: list[tuple[Message, PendingDelivery]] | None = None,
              all_messages: bool = False) -> list[int]:
    """Deletes these unread markers (each only if still there) and records the user as a
    reader of these messages in flight (each only while in flight), with their events.
    A message whose fan-out finished meanwhile is marked read through its marker."""
    early = {p.message_id: p for _, p in in_flight or ()}

    def changes(found: list[UnreadMessage]) -> list[FlagChange]:
        return [FlagChange(m.message_id, _deleter(m)) for m in found
                if m.message_id not in early]

    def reread(ids: list[int]) -> list[FlagChange]:
        still = {m.message_id: p for m, p in unread_in_flight(
            Recipient(realm_id, user_id), message_ids=[i for i in ids if i in early])}
        found = [FlagChange(i, read_in_flight(p, user_id, True)) for i, p in still.items()]
        markers = unread_markers(realm_id, user_id, [i for i in ids if i not in still])
        return sorted(found + [FlagChange(m.message_id, _deleter(m))
                               for m in markers.values()], key=lambda c: c.message_id)

    first = changes(markers) + [FlagChange(i, read_in_flight(p, user_id, True))
                                for i, p in early.items()]
    return commit_flag_changes(realm_id, user_id, "read", "add",
                               sorted(first, key=lambda c: c.message_id), reread=reread,
                               all_messages=all_messages)


def _deleter(marker: UnreadMessage) -> Callable[[TransactWrite], None]:
    def write(tx: TransactWrite) -> None:
        tx.delete(marker, condition=UnreadMessage.message_id.exists())
    return write


def mark_unread(realm_id: int, user_id: int, messages: list[Message],
                mentions: Callable[[Message], int]) -> list[int]:
    """Puts unread markers on these messages (each only if absent), with their events; a
    message in flight the user marked read takes the user off its early readers."""
    by_id = {m.message_id: m for m in messages}
    markers = {m.message_id: new_marker(realm_id, user_id, m, mentions(m)) for m in messages}

    def changes(ids: Iterable[int]) -> list[FlagChange]:
        ids = sorted(ids)
        recipient = Recipient(realm_id, user_id)
        found: list[FlagChange] = []
        pending = pending_of(realm_id, ids)
        for message_id in ids:
            item = pending.get(message_id)
            if item is not None and recipient.unread_by_default(by_id[message_id], item):
                if user_id in (item.read_by or ()):
                    found.append(FlagChange(message_id, read_in_flight(item, user_id, False)))
                continue   # else unread already
            found.append(FlagChange(message_id, _creator(markers[message_id])))
        return found

    def reread(ids: list[int]) -> list[FlagChange]:
        return changes(set(ids) - set(unread_markers(realm_id, user_id, ids)))

    details = {i: marker_details(marker, user_id) for i, marker in markers.items()}
    return commit_flag_changes(realm_id, user_id, "read", "remove", changes(by_id),
                               details=details, reread=reread)


def _creator(marker: UnreadMessage) -> Callable[[TransactWrite], None]:
    def write(tx: TransactWrite) -> None:
        tx.save(marker, condition=UnreadMessage.message_id.does_not_exist())
    return write


def set_lasting_flag(realm_id: int, user_id: int, flag: str, add: bool,
                     message_ids: list[int], places: dict[int, str | None] | None = None
                     ) -> list[int]:
    """Adds or removes a user-set flag (starred, collapsed) on the messages' flag rows.
    `places`: each message's topic (message_place), recorded on rows being created."""
    key = user_key(realm_id, user_id)

    def needs_change(rows: dict[int, MessageFlag], message_id: int) -> bool:
        has = message_id in rows and flag in (rows[message_id].flags or ())
        return has != add

    def changes(ids: Iterable[int]) -> list[FlagChange]:
        rows = flag_rows(realm_id, user_id, ids)
        return [FlagChange(i, _flag_writer(key, i, flag, add, (places or {}).get(i)))
                for i in sorted(ids) if needs_change(rows, i)]

    return commit_flag_changes(realm_id, user_id, flag, "add" if add else "remove",
                               changes(message_ids), reread=changes)


def _flag_writer(key: str, message_id: int, flag: str, add: bool, place: str | None
                 ) -> Callable[[TransactWrite], None]:
    row = MessageFlag(key, message_id)
    has_flag = MessageFlag.flags.contains(flag)
    actions: list[Action] = [
        MessageFlag.flags.add({flag}) if add else MessageFlag.flags.delete({flag})]
    if add and place is not None:
        actions.append(MessageFlag.topic_key.set(place))
    if flag == "starred":
        actions.append(MessageFlag.starred_key.set(key) if add
                       else MessageFlag.starred_key.remove())
    condition = (MessageFlag.flags.does_not_exist() | ~has_flag) if add else has_flag

    def write(tx: TransactWrite) -> None:
        tx.update(row, actions=actions, condition=condition)
    return write


def mentions_of(flags: Iterable[str]) -> int:
    return mention_bits(set(flags))


def mark_sender_read(realm_id: int, user_id: int, sender_id: int) -> list[int]:
    """Marks every message of the sender read for the user (the fan-out's step for a
    new mute): the user's markers filtered by sender, and the sender's messages in
    flight, with their events."""
    in_flight = unread_in_flight(Recipient(realm_id, user_id),
                                 lambda m: m.sender_id == sender_id)
    markers = list(UnreadMessage.query(user_key(realm_id, user_id),
                                       filter_condition=UnreadMessage.sender_id == sender_id))
    return mark_read(realm_id, user_id, markers, in_flight)
