"""A user's historical rows (models/message_flags.py): the messages they did not receive
but gave a flag or a reaction to, which count among their received messages from then
on, as the reference's historical rows do. Read through the rows' sparse index."""
from __future__ import annotations

from collections.abc import Iterator

from chalicelib.models.channels import user_key
from chalicelib.models.message_flags import MessageFlag


def historical_ids(realm_id: int, user_id: int, low: int, high: int) -> set[int]:
    """The user's historical messages with ids in [low, high] (one Query, keys only)."""
    return {int(row.message_id) for row in MessageFlag.historical.query(
        user_key(realm_id, user_id), MessageFlag.message_id.between(low, high))}


def historical_id_pages(realm_id: int, user_id: int, low: int, high: int, forward: bool
                        ) -> Iterator[int]:
    """The user's historical message ids in [low, high], in id order (`forward`) or from
    the newest down."""
    for row in MessageFlag.historical.query(user_key(realm_id, user_id),
                                            MessageFlag.message_id.between(low, high),
                                            scan_index_forward=forward):
        yield int(row.message_id)
