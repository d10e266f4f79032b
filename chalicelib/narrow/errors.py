"""The errors a narrow can get, with our own texts: BAD_NARROW (the reference's code)
for an operator, an `is:`/`has:`/`channels:` operand, a channel, a user or a message id
that is not known; BAD_REQUEST for a term whose shape or operand type is wrong."""
from __future__ import annotations

from chalicelib.core.errors import ApiError, ErrorCode


class BadNarrowError(ApiError):
    """A narrow term that names no operator, an invalid operand, or something unknown."""

    code = ErrorCode.BAD_NARROW


def bad_operator(description: str) -> BadNarrowError:
    return BadNarrowError(f"This narrow cannot be used: {description}")


def bad_message_id(operator: str, reason: str = "not a message id") -> BadNarrowError:
    """An `id`, `near` or `with` operand of the right type that names no message id (or,
    for `with`, no message the caller may read, when nothing else names a conversation)."""
    return BadNarrowError(f"Invalid narrow operand for {operator}: {reason}")


def bad_operand(operator: str, description: str) -> ApiError:
    return ApiError(f"Invalid narrow operand for {operator}: {description}")


def bad_term(description: str) -> ApiError:
    return ApiError(f"Invalid narrow term: {description}")


def bad_combination(description: str) -> BadNarrowError:
    return BadNarrowError(f"These narrow operators cannot be combined: {description}")
