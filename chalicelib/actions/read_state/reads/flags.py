"""Reading read state: each message's flags for a user, from its unread marker and flag row."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from chalicelib.actions.read_state.reads.pending import Recipient, load, pending_of
from chalicelib.models.channels import user_key
from chalicelib.models.message_flags import (
    MessageFlag,
    UnreadMessage,
)
from chalicelib.models.messages import Message

R = TypeVar("R", UnreadMessage, MessageFlag)


def _rows(model: type[R], realm_id: int, user_id: int, message_ids: Iterable[int]
          ) -> dict[int, R]:
    """The user's rows of `model` among these messages (BatchGetItem, 100 keys a request)."""
    key = user_key(realm_id, user_id)
    return {int(row.message_id): row for row in model.batch_get(
        [(key, message_id) for message_id in sorted(set(message_ids))], consistent_read=True)}


def unread_markers(realm_id: int, user_id: int, message_ids: Iterable[int]
                   ) -> dict[int, UnreadMessage]:
    return _rows(UnreadMessage, realm_id, user_id, message_ids)


def flag_rows(realm_id: int, user_id: int, message_ids: Iterable[int]
              ) -> dict[int, MessageFlag]:
    return _rows(MessageFlag, realm_id, user_id, message_ids)


def flags_of(realm_id: int, user_id: int, message_ids: list[int],
             messages: Iterable[Message] = ()) -> dict[int, list[str]]:
    """Each message's flags for the user: `read` unless a marker says otherwise, plus the
    lasting flags of its row; for a message the fan-out has not reached yet, as the
    fan-out will write them (reads/pending.py). Three batched reads, whatever the number
    of messages (`messages`: those already read, so they are not read again)."""
    pending = pending_of(realm_id, message_ids)   # first: once gone, markers are final
    markers = unread_markers(realm_id, user_id, message_ids)
    rows = flag_rows(realm_id, user_id, message_ids)
    flags = {message_id: _flags(message_id in markers, rows.get(message_id))
             for message_id in message_ids}
    if pending:
        given = {m.message_id: m for m in messages}
        found = {**load(realm_id, set(pending) - set(given)), **given}
        recipient = Recipient(realm_id, user_id)
        for message_id, item in pending.items():
            message = found.get(message_id)
            arriving = None if message is None else recipient.arrival_flags(message, item)
            if message is None or arriving is None:
                continue   # the marker alone decides, as for a delivered message
            shown = set(flags[message_id]) | arriving
            if recipient.unread(message, item):
                shown.discard("read")
            else:
                shown.add("read")
            flags[message_id] = sorted(shown)
    return flags


def flags_of_users(realm_id: int, user_ids: Iterable[int], message_id: int
                   ) -> dict[str, list[str]]:
    """One message's flags for each of these users (batched reads of both tables)."""
    users = sorted(set(user_ids))
    keys = [(user_key(realm_id, u), message_id) for u in users]
    unread = {int(m.user_id) for m in UnreadMessage.batch_get(keys, consistent_read=True)}
    rows = {f.user_key: f for f in MessageFlag.batch_get(keys, consistent_read=True)}
    return {str(user_id): _flags(user_id in unread, rows.get(user_key(realm_id, user_id)))
            for user_id in users}


def _flags(unread: bool, row: MessageFlag | None) -> list[str]:
    flags = set(row.flags or ()) if row is not None else set()
    if not unread:
        flags.add("read")
    return sorted(flags)


