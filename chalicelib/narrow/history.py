"""Which messages a narrow reads: the caller's received messages, or a channel's whole
history (the reference's `ok_to_include_history`).

A narrow reads only the messages its caller received (their audience when sent, and the
messages they gave a flag or a reaction to, kept as "historical"), unless it names a
channel whose history the caller may read (a positive `channel` term; the last one
decides) or asks for `channels:public` and the caller may read public channels. Any
`is:` term but `is:resolved` asks about the caller's own state of a message, so it
reads received messages only. Negated terms never widen what is read: `-channel:x`
reads received messages. The rule reads the narrow only: what the caller may read of
a channel is the caller's to tell (`may_read_history`), with channel ids resolved.
"""
from __future__ import annotations

from collections.abc import Callable

from chalicelib.narrow.types import Narrow

# is: operands that are about the message (its topic), not the caller's state of it.
HISTORY_IS_OPERANDS = frozenset({"resolved"})


def includes_history(narrow: Narrow, may_read_history: Callable[[int], bool],
                     reads_public_channels: bool) -> bool:
    """Whether the narrow reads messages the caller did not receive."""
    include = False
    for term in narrow.terms:
        if term.negated:
            continue
        if term.operator == "channel" and isinstance(term.operand, int):
            include = may_read_history(term.operand)
        elif term.operator == "channels" and term.operand == "public" and \
                reads_public_channels:
            include = True
    if any(t.operator == "is" and t.operand not in HISTORY_IS_OPERANDS
           for t in narrow.terms):
        return False
    return include
