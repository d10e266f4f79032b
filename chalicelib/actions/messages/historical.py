"""Messages a caller reads from a channel's history become theirs once they act on them:
before a flag or a reaction is given, those they did not receive get a historical row
(read_state/historical.py), as the reference creates one."""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.messages.reads.received import not_received
from chalicelib.actions.read_state.historical import mark_historical
from chalicelib.models.messages import Message


def keep_as_historical(access: Access, messages: Iterable[Message]) -> None:
    """Gives a historical row to each of these messages the caller did not receive."""
    unreceived = not_received(access, messages)
    if unreceived:
        mark_historical(access.caller.realm_id, access.caller.user_id, unreceived)
