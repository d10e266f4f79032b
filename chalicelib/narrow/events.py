"""Narrows of event queues, evaluated on each message event by the same evaluator
(resolved once at registration: queue_narrow in actions/messages/reads/narrow.py).
Imports no action, so the fan-out can use it.

A message event tells the message (and the send, beside it, its raw Markdown and its
channel's privacy) and the fan-out knows the queue owner's flags, so every
operator that asks only those works here, `search` included; `is:muted` reads the
owner's topic and channel settings (narrow/reader.py), once per fan-out batch and only
for queues narrowed by it. `is:followed`, which the reference's event narrows refuse,
`near`, a position rather than a condition, and unknown operators are refused when the
queue is registered, with BAD_REQUEST as the reference answers.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.core.errors import ApiError
from chalicelib.narrow.evaluate import Evaluator, ReaderContext
from chalicelib.narrow.facts import UNTOLD, SendFacts, event_facts
from chalicelib.narrow.parser import is_known_operator, parse_narrow
from chalicelib.narrow.reader import needs_settings
from chalicelib.narrow.search_terms import search_test
from chalicelib.narrow.types import Narrow

UNSUPPORTED_OPERATORS = frozenset({"near"})
UNSUPPORTED_IS_OPERANDS = frozenset({"followed"})


def parse_event_narrow(raw: Any) -> Narrow:
    """The narrow of a queue being registered: an operator unknown here is refused with
    BAD_REQUEST, as the reference's event narrows answer (GET /messages: BAD_NARROW)."""
    for term in raw if isinstance(raw, list) else ():
        operator = term.get("operator") if isinstance(term, dict) else (
            term[0] if isinstance(term, list) and term else None)
        if isinstance(operator, str) and not is_known_operator(operator):
            raise ApiError(f"Event queues cannot be narrowed by the operator "
                           f"{operator[:50]!r}.")
    narrow = parse_narrow(raw)
    check_event_narrow(narrow)
    return narrow


def check_event_narrow(narrow: Narrow) -> None:
    """Refuses (BAD_REQUEST) what event narrows do not take: is:followed, as the
    reference, and near, a position."""
    for term in narrow.terms:
        if term.operator in UNSUPPORTED_OPERATORS:
            raise ApiError(f"Event queues cannot be narrowed by the operator "
                           f"{term.operator!r}.")
        if term.operator == "is" and term.operand in UNSUPPORTED_IS_OPERANDS:
            raise ApiError(f"Event queues cannot be narrowed by is:{term.operand}.")


def event_matches(stored: list[Any], user_id: int, message: dict[str, Any],
                  flags: list[str] | None,
                  settings: Callable[[], ReaderContext] | None = None,
                  sent: SendFacts = UNTOLD) -> bool:
    """Whether a queue registered with `stored` (as queue_narrow returned it, or the
    [operator, operand] pairs older queues kept) gets this message event; `settings`
    gives the owner's topic and channel settings, asked only if the narrow needs them;
    `sent`, what the send told beside the event."""
    if not stored:
        return True
    narrow = parse_narrow(stored)
    reader = settings() if settings is not None and needs_settings(narrow) else \
        ReaderContext(user_id)
    return Evaluator(narrow, reader, search_test).matches(event_facts(message, flags, sent))
