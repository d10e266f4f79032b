"""A parsed narrow: canonical operators and typed operands, immutable."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Operator = Literal["channel", "channels", "topic", "dm", "dm-including", "group-pm-with",
                   "sender", "mentions", "id", "near", "with", "is", "has", "search"]
IsOperand = Literal["dm", "starred", "mentioned", "alerted", "unread", "resolved",
                    "followed", "muted"]
HasOperand = Literal["link", "attachment", "image", "reaction"]

# A user: an id, an email, or "me" (sender only) until resolved to an id.
UserRef = int | str
Operand = int | str | tuple[UserRef, ...]


@dataclass(frozen=True)
class Term:
    """One condition: `operator:operand`, or its negation."""

    operator: Operator
    operand: Operand
    negated: bool = False

    @property
    def id(self) -> int:
        """The operand of an id-valued term (id, near, with, a resolved channel)."""
        if not isinstance(self.operand, int):
            raise TypeError(f"{self.operator} has no id operand")
        return self.operand

    def wire(self) -> dict[str, object]:
        operand = list(self.operand) if isinstance(self.operand, tuple) else self.operand
        return {"operator": self.operator, "operand": operand, "negated": self.negated}


@dataclass(frozen=True)
class Narrow:
    """All terms must hold (an empty narrow holds every message)."""

    terms: tuple[Term, ...] = ()

    def positive(self, operator: Operator) -> list[Term]:
        return [t for t in self.terms if t.operator == operator and not t.negated]

    def first(self, operator: Operator) -> Term | None:
        found = self.positive(operator)
        return found[0] if found else None

    def has_term(self, operator: Operator, operand: Operand | None = None) -> bool:
        """A positive term with this operator (and operand, if given)."""
        return any(operand is None or t.operand == operand for t in self.positive(operator))

    @property
    def search_text(self) -> str | None:
        """The positive search terms' text, joined; None without any."""
        words = [str(t.operand) for t in self.positive("search")]
        return " ".join(words) if words else None

    def without(self, *operators: Operator) -> Narrow:
        return Narrow(tuple(t for t in self.terms if t.operator not in operators))

    def wire(self) -> list[dict[str, object]]:
        return [t.wire() for t in self.terms]
