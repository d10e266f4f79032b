"""Parses a narrow from its wire forms into a typed, validated `Narrow`.

Accepted: a list of `{"operator", "operand", "negated"}` objects, or legacy
`[operator, operand]` pairs; aliases (`stream`, `streams`, `subject`, `pm-with`,
`is:private`, and the underscore spellings) become the current names. `group-pm-with`
stays an operator of its own: group conversations only, as the reference has it.

A user operand (`dm`, `dm-including`, `group-pm-with`, `sender`, `mentions`) is bounded in
every form,
a list or emails separated by commas, before anything is read, and each user is kept
once however it is spelled (emails folded as the email claim folds them), so what
resolving it costs follows the distinct users, not the spellings.

`check_narrow` holds the rules about the narrow as a whole that a request's narrow must
keep (a queue's stored narrow, parsed again on each event, is not checked again).
"""
from __future__ import annotations

from typing import Any, cast, get_args

from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.narrow.errors import (
    bad_combination,
    bad_message_id,
    bad_operand,
    bad_operator,
    bad_term,
)
from chalicelib.narrow.types import (
    HasOperand,
    IsOperand,
    Narrow,
    Operand,
    Operator,
    Term,
    UserRef,
)
from chalicelib.rules.json_values import MAX_INTEGER, check_json

ALIASES = {"stream": "channel", "streams": "channels", "subject": "topic", "pm-with": "dm",
           "pm_with": "dm", "group_pm_with": "group-pm-with"}
OPERATORS: frozenset[str] = frozenset(get_args(Operator))
IS_OPERANDS: frozenset[str] = frozenset(get_args(IsOperand))
IS_ALIASES = {"private": "dm"}
HAS_OPERANDS: frozenset[str] = frozenset(get_args(HasOperand))
CHANNELS_OPERANDS = ("public", "web-public")
NOT_NEGATABLE = frozenset({"near", "with"})   # positions, not conditions
# Operators of a level the advertised one may not reach: unknown until it does.
OPERATOR_LEVELS = {"mentions": 446}
TERM_KEYS = frozenset({"operator", "operand", "negated"})
MAX_TERMS = 50
MAX_ID_DIGITS = len(str(MAX_INTEGER))
# Users one operand names, in any form (the limit of a direct message's recipients).
MAX_OPERAND_USERS = 1000
# Terms that hold only channel messages, or only direct messages (when not negated).
CHANNEL_OPERATORS = frozenset({"channel", "channels", "topic"})
DIRECT_OPERATORS = frozenset({"dm", "dm-including", "group-pm-with"})


def parse_narrow(raw: Any) -> Narrow:
    """The narrow, or BAD_NARROW naming the first term that is not one."""
    if not isinstance(raw, list):
        raise bad_term("a narrow is a list of terms")
    if len(raw) > MAX_TERMS:
        raise bad_term(f"a narrow has at most {MAX_TERMS} terms")
    narrow = Narrow(tuple(parse_term(term) for term in raw))
    if len(narrow.positive("with")) > 1:
        raise bad_combination("more than one 'with'")
    return narrow


def parse_term(term: Any) -> Term:
    if isinstance(term, dict):
        if not {"operator", "operand"} <= term.keys() or not term.keys() <= TERM_KEYS:
            raise bad_term("a term has an operator, an operand and maybe negated")
        operator, operand, negated = term["operator"], term["operand"], term.get(
            "negated", False)
    elif isinstance(term, list) and len(term) == 2:
        (operator, operand), negated = term, False
    else:
        raise bad_term("each term needs an operator and an operand")
    if not isinstance(operator, str):
        raise bad_term("an operator is a string")
    if not isinstance(negated, bool):
        raise bad_term("negated is true or false")
    name = ALIASES.get(operator, operator)
    if not is_known_operator(name):
        raise bad_operator(f"unknown operator {operator[:50]!r}")
    if negated and name in NOT_NEGATABLE:
        raise bad_operator(f"{name} cannot be negated")
    canonical = cast(Operator, name)
    return Term(canonical, _operand(canonical, operand), negated)


def is_known_operator(name: str) -> bool:
    """An operator (or alias) of the advertised level."""
    name = ALIASES.get(name, name)
    return name in OPERATORS and level_reached(OPERATOR_LEVELS.get(name, 0))


def _operand(operator: Operator, operand: Any) -> Operand:
    if operator == "channel":
        if _is_id(operand):
            return _id(operator, operand)
        return _text(operator, operand)
    if operator == "channels":
        if operand not in CHANNELS_OPERANDS:
            raise bad_operator(f"unknown 'channels' operand {str(operand)[:50]!r}")
        return str(operand)
    if operator in ("topic", "search"):
        if not isinstance(operand, str):
            raise bad_operand(operator, "give a string")
        return operand
    if operator in ("id", "near", "with"):
        return _message_id(operator, operand)
    if operator == "is":
        value = IS_ALIASES.get(operand, operand) if isinstance(operand, str) else operand
        if value not in IS_OPERANDS:
            raise bad_operator(f"unknown 'is' operand {str(operand)[:50]!r}")
        return str(value)
    if operator == "has":
        if operand not in HAS_OPERANDS:
            raise bad_operator(f"unknown 'has' operand {str(operand)[:50]!r}")
        return str(operand)
    if operator == "dm":
        return _users(operator, operand)
    # sender, dm-including, group-pm-with, mentions: one user
    users = _users(operator, operand)
    if len(users) != 1:
        raise bad_operand(operator, "give one user")
    if users[0] == "me" and operator != "sender":
        raise bad_operand(operator, "give a user id or an email")
    return users[0]


def _is_id(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and value.isascii() and value.isdigit())


def _id(operator: str, value: Any) -> int:
    """An id: an integer or its digits, within the API's integer range."""
    try:
        number = int(check_json(f"narrow operand for {operator}", value, int))
    except ApiError:
        raise bad_operand(operator, "give an id") from None
    if number < 0:
        raise bad_operand(operator, "give an id")
    return number


def _message_id(operator: str, value: Any) -> int:
    """A message id: an integer or its digits. Another type is a malformed term
    (BAD_REQUEST); a number or text that names no message id (negative, signed, words,
    beyond the API's integers) is BAD_NARROW, as the reference refuses it."""
    if not isinstance(value, str | int):
        raise bad_operand(operator, "give a message id")
    if isinstance(value, bool) or not _is_id(value) or len(str(value)) > MAX_ID_DIGITS \
            or not 0 <= int(value) < MAX_INTEGER:
        raise bad_message_id(operator)
    return int(value)


def _text(operator: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise bad_operand(operator, "give an id or a name")
    return value


def _users(operator: str, operand: Any) -> tuple[UserRef, ...]:
    """User ids or emails: a list, one id, or emails (or digits) separated by commas; at
    most MAX_OPERAND_USERS of them, each once (emails stripped and lower-cased)."""
    if isinstance(operand, str):
        # Split no further than one past the limit: a longer operand is refused as is.
        items: list[Any] = operand.split(",", MAX_OPERAND_USERS)
    elif isinstance(operand, list):
        items = operand
    else:
        items = [operand]
    if len(items) > MAX_OPERAND_USERS:
        raise bad_operand(operator, f"name at most {MAX_OPERAND_USERS} users")
    users: dict[UserRef, None] = {}
    for item in items:
        if isinstance(item, str):
            item = item.strip()
        if _is_id(item):
            users[_id(operator, item)] = None
        elif isinstance(item, str) and (item == "me" or "@" in item):
            users[item if item == "me" else item.lower()] = None
        else:
            raise bad_operand(operator, "give user ids or emails")
    if not users:
        raise bad_operand(operator, "give user ids or emails")
    return tuple(users)


def check_narrow(narrow: Narrow) -> None:
    """The rules a request's narrow keeps as a whole, as the reference's validation and
    query builder apply them: a `search` has words, and no narrow asks for channel
    messages and direct messages at once (`is:dm` negated asks for channel messages)."""
    for term in narrow.positive("search"):
        if not str(term.operand).strip():
            raise bad_operand("search", "the search text is empty")
    channel_only = direct_only = False
    for term in narrow.terms:
        is_dm = term.operator == "is" and term.operand == "dm"
        if term.negated:
            channel_only = channel_only or is_dm
        else:
            channel_only = channel_only or term.operator in CHANNEL_OPERATORS
            direct_only = direct_only or is_dm or term.operator in DIRECT_OPERATORS
    if channel_only and direct_only:
        raise bad_operator("a message is either in a channel or a direct message, "
                           "never both")
