"""Parses GET /messages narrows: lists of {operator, operand} or legacy [operator, operand]."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.core.errors import ApiError
from chalicelib.lib.json_values import check_json

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


def _id_operand(operator: str, operand: Any) -> int:
    """An id: an integer or its digits, within the API's integer range."""
    try:
        return int(check_json(f"narrow operand for {operator}", operand, int))
    except ApiError:
        raise ApiError(f"Invalid narrow operand for {operator}") from None


def _channel_operand(operand: Any) -> int | str:
    """A channel id (number or digits) or a name."""
    if isinstance(operand, int) or (isinstance(operand, str) and operand.isascii()
                                    and operand.isdigit()):
        return _id_operand("channel", operand)
    if not isinstance(operand, str):
        raise ApiError("Invalid narrow operand for channel: give an id or a name.")
    return operand


def _dm_operand(operand: Any) -> str | list[int | str]:
    """Emails separated by commas, or a list of user ids or emails."""
    if isinstance(operand, str):
        return operand
    if isinstance(operand, int) and not isinstance(operand, bool):
        return [_id_operand("dm", operand)]
    if isinstance(operand, list) and all(
            isinstance(item, str) or (isinstance(item, int) and not isinstance(item, bool))
            for item in operand):
        return [item if isinstance(item, str) else _id_operand("dm", item)
                for item in operand]
    raise ApiError("Invalid narrow operand for dm: give user ids or emails.")


def parse_narrow(terms: list[Any]) -> Narrow:  # noqa: C901, PLR0912 - to be replaced by the narrow package (issue 21)
    narrow = Narrow()
    for term in terms:
        if isinstance(term, dict):
            operator, operand, negated = term.get("operator"), term.get("operand"), term.get(
                "negated", False)
        elif isinstance(term, list) and len(term) == 2:
            (operator, operand), negated = term, False
        else:
            raise ApiError("Invalid narrow: each term needs an operator and an operand.")
        if not isinstance(operator, str):
            raise ApiError("Invalid narrow: an operator must be a string.")
        operator = ALIASES.get(operator, operator)
        if operator not in SUPPORTED or negated:
            raise ApiError(f"Invalid narrow operator: {operator}")
        if operator == "channel":
            narrow.channel = _channel_operand(operand)
        elif operator == "topic":
            if not isinstance(operand, str):
                raise ApiError("Invalid narrow operand for topic: give a string.")
            narrow.topic = operand
        elif operator == "dm":
            narrow.dm = _dm_operand(operand)
        elif operator == "id":
            narrow.message_id = _id_operand("id", operand)
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
