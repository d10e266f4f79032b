"""The narrow language: one parser into a typed narrow, one evaluator for every caller
(GET /messages, flags by narrow, matches_narrow, event queues)."""
from __future__ import annotations

from chalicelib.narrow.errors import (
    BadNarrowError,
    bad_combination,
    bad_operand,
    bad_operator,
)
from chalicelib.narrow.evaluate import (
    Evaluator,
    MessageFacts,
    ReaderContext,
    SearchTest,
)
from chalicelib.narrow.facts import event_facts, message_facts
from chalicelib.narrow.parser import parse_narrow
from chalicelib.narrow.types import Narrow, Term

__all__ = [
    "BadNarrowError", "Evaluator", "MessageFacts", "Narrow", "ReaderContext", "SearchTest",
    "Term", "bad_combination", "bad_operand", "bad_operator", "event_facts", "message_facts",
    "parse_narrow",
]
