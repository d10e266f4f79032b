"""Patterns that users supply (linkifiers, alert words) run in RE2, a linear-time engine:
matching takes time in proportion to the text whatever the pattern, where Python's
backtracking `re` can take exponential time (`(a+)+b` against a run of `a`s). RE2 has no
backreferences or look-around; a pattern that needs them is refused (PatternError).

google-re2 (Google's own binding) compiles the patterns. Texts are matched as UTF-8
bytes, encoded once: the binding's str interface encodes the whole text again on every
search, which made a text with many matches quadratic.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2

# Whitespace as Python's `\s` has it (RE2's `\s` is ASCII only), and a word character
# as Python's `\w` (RE2's is ASCII only).
SPACE = r"\s\pZ\x{0b}\x{1c}-\x{1f}\x{85}"
WORD = r"\pL\pN_"
MAX_PROGRAM_BYTES = 8 << 20   # RE2's memory budget for one compiled pattern
# Alert words matched by one pattern: a user's words (each up to 100 characters, as many
# as their item holds) stay well within the budget in patterns of this many.
WORDS_PER_PATTERN = 200


class PatternError(ValueError):
    """A pattern RE2 cannot run (invalid, or beyond it: look-around, backreferences)."""


def _options(case_sensitive: bool = True) -> Any:
    options = re2.Options()
    options.log_errors = False   # the error comes back as an exception, not on stderr
    options.max_mem = MAX_PROGRAM_BYTES
    options.case_sensitive = case_sensitive
    return options


def _compile(pattern: str, case_sensitive: bool = True) -> Any:
    try:
        return re2.compile(pattern, _options(case_sensitive))
    except re2.error as error:
        reason = error.args[0] if error.args else "not a pattern RE2 runs"
        if isinstance(reason, bytes):
            reason = reason.decode(errors="replace")
        raise PatternError(str(reason)) from None


@dataclass(frozen=True)
class Found:
    """One match: its place as UTF-8 byte offsets of the text, its text, its groups."""

    start: int
    end: int
    text: str
    groups: dict[str, str | None]


@dataclass(frozen=True)
class DelimitedPattern:
    """A pattern that matches only as a whole word of the text: after the start, a
    space or one of `before` characters, and not followed by a word character (as the
    reference's linkifiers match). The delimiters are matched, not reported, and a
    delimiter after one match may open the next."""

    regexp: Any
    group_names: frozenset[str]

    def find(self, text: str) -> Iterator[Found]:
        encoded = text.encode()
        position = 0
        while position <= len(encoded):
            match = self.regexp.search(encoded, position)
            if match is None:
                return
            start, end = match.span(1)
            if end == start:   # an empty match links nothing; look further on
                position = match.start() + 1
                continue
            groups = {name: value.decode() if value is not None else None
                      for name, value in match.groupdict().items()}
            yield Found(start, end, encoded[start:end].decode(), groups)
            position = end


def delimited(source: str, before: str) -> DelimitedPattern:
    """`source` as a DelimitedPattern; PatternError if RE2 cannot run it. `before`: the
    characters besides spaces that may come right before a match (regex-escaped)."""
    named = _compile(source).groupindex   # alone first: its parentheses must balance
    wrapped = _compile(rf"(?:^|[{SPACE}{before}])({source})(?:$|[^{WORD}])")
    return DelimitedPattern(wrapped, frozenset(named))


@lru_cache(maxsize=1024)
def _words_pattern(words: tuple[str, ...]) -> Any:
    alternatives = "|".join(re2.escape(word) for word in words)
    return _compile(rf"(?:^|[^{WORD}])(?:{alternatives})(?:$|[^{WORD}])",
                    case_sensitive=False)


def has_any_word(words: Sequence[str], text: str) -> bool:
    """Whether one of the words is in the text as a whole word, case ignored (one pass
    over the text per WORDS_PER_PATTERN words)."""
    wanted = sorted({word for word in words if word})
    encoded = text.encode()
    return any(_words_pattern(tuple(wanted[i:i + WORDS_PER_PATTERN])).search(encoded)
               is not None for i in range(0, len(wanted), WORDS_PER_PATTERN))
