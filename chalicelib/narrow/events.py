"""Narrows of event queues, evaluated on each message event by the same evaluator
(resolved once at registration: queue_narrow in actions/messages/reads/narrow.py).
Imports no action, so the fan-out can use it."""
from __future__ import annotations

from typing import Any

from chalicelib.narrow.evaluate import Evaluator, ReaderContext
from chalicelib.narrow.facts import event_facts
from chalicelib.narrow.parser import parse_narrow


def event_matches(stored: list[Any], user_id: int, message: dict[str, Any],
                  flags: list[str] | None) -> bool:
    """Whether a queue registered with `stored` (as queue_narrow returned it, or the
    [operator, operand] pairs older queues kept) gets this message event."""
    if not stored:
        return True
    evaluator = Evaluator(parse_narrow(stored), ReaderContext(user_id))
    return evaluator.matches(event_facts(message, flags))
