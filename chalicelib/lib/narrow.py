"""Parses GET /messages narrows: lists of {operator, operand} or legacy [operator, operand]."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.http.errors import ApiError

ALIASES = {"stream": "channel", "subject": "topic", "pm-with": "dm"}
SUPPORTED = {"channel", "topic", "dm", "id", "is"}


@dataclass
class Narrow:
    channel: Any = None         # a channel id or name
    topic: str | None = None
    dm: Any = None              # user ids or emails
    message_id: int | None = None
    is_dm: bool = False
    # Personal flags: messages the user has unread, starred, or is mentioned in.
    is_unread: bool = False
    is_starred: bool = False
    is_mentioned: bool = False

    @property
    def personal(self) -> str | None:
        """The flag whose per-user rows list this narrow's candidates, if any."""
        return ("unread" if self.is_unread else "starred" if self.is_starred
                else "mentioned" if self.is_mentioned else None)


def parse_narrow(terms: list[Any]) -> Narrow:
    narrow = Narrow()
    for term in terms:
        if isinstance(term, dict):
            operator, operand, negated = term.get("operator"), term.get("operand"), term.get(
                "negated", False)
        elif isinstance(term, list) and len(term) == 2:
            (operator, operand), negated = term, False
        else:
            raise ApiError("Invalid narrow: each term needs an operator and an operand.")
        operator = ALIASES.get(operator, operator)
        if operator not in SUPPORTED or negated:
            raise ApiError(f"Invalid narrow operator: {operator}")
        if operator == "channel":
            narrow.channel = operand
        elif operator == "topic":
            narrow.topic = str(operand)
        elif operator == "dm":
            narrow.dm = operand
        elif operator == "id":
            try:
                narrow.message_id = int(operand)
            except (TypeError, ValueError):
                raise ApiError("Invalid narrow operand for id") from None
        elif operator == "is" and operand in ("dm", "private"):
            narrow.is_dm = True
        elif operator == "is" and operand == "unread":
            narrow.is_unread = True
        elif operator == "is" and operand == "starred":
            narrow.is_starred = True
        elif operator == "is" and operand == "mentioned":
            narrow.is_mentioned = True
        else:
            raise ApiError(f"Invalid narrow operand: is:{operand}")
    if narrow.topic is not None and narrow.channel is None:
        raise ApiError("Invalid narrow: a topic needs a channel.")
    return narrow
