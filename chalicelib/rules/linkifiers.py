"""Linkifiers: checking a (pattern, URL template) pair and turning matches in text into links.

A pattern is a regular expression in RE2's syntax, as the reference's, whose named groups
fill the RFC 6570 template's variables; it runs in RE2, a linear-time engine
(rules/patterns.py), so no pattern an administrator saves can make rendering a message
take exponential time, and one RE2 cannot run is refused when it is saved. As the
reference does, a match must start the text or follow whitespace or one of `'"(,:<`, and
must not be followed by a word character, so `#12` links in "see #12" and not inside
"abc#12x".
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from chalicelib.rules.patterns import DelimitedPattern, PatternError, delimited
from chalicelib.rules.url_template import UrlTemplateError, template_variables

MAX_PATTERN_LENGTH = 1000
MAX_URL_TEMPLATE_LENGTH = 1024
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_OPERATORS = "+#./;?&"
# RFC 6570 §3.2.1: what each operator puts first and between values, whether it names
# the variables, and whether reserved characters pass unencoded.
_OPERATOR_RULES: dict[str, tuple[str, str, bool, bool]] = {
    "": ("", ",", False, False), "+": ("", ",", False, True), "#": ("#", ",", False, True),
    ".": (".", ".", False, False), "/": ("/", "/", False, False),
    ";": (";", ";", True, False), "?": ("?", "&", True, False), "&": ("&", "&", True, False),
}
_UNRESERVED = "-._~"
# What may come right before a match besides a space (escaped for a character class).
_BEFORE = "'\"(,:<"
_RESERVED = ":/?#[]@!$&'()*+,;="


class LinkifierError(ValueError):
    """A pattern or URL template a linkifier cannot have; the message says why."""


@dataclass(frozen=True)
class LinkifierRule:
    """One linkifier, compiled for the renderer."""

    pattern: DelimitedPattern
    url_template: str


def check_linkifier(pattern: str, url_template: str) -> tuple[str, str]:
    """The pair, if the pattern compiles and its named groups are the template's variables."""
    if not pattern:
        raise LinkifierError("Linkifier pattern cannot be empty.")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise LinkifierError(f"pattern is over the limit of {MAX_PATTERN_LENGTH} characters")
    if len(url_template) > MAX_URL_TEMPLATE_LENGTH:
        raise LinkifierError(f"url_template is over the limit of "
                             f"{MAX_URL_TEMPLATE_LENGTH} characters")
    compiled = compiled_pattern(pattern)
    try:
        variables = template_variables(url_template)
    except UrlTemplateError:
        raise LinkifierError("The URL template is not valid.") from None
    if not url_template.lower().startswith(("http://", "https://", "/")):
        raise LinkifierError("The URL template is not valid.")
    groups = set(compiled.group_names)
    for name in variables:
        if name not in groups:
            raise LinkifierError(f"The URL template uses a group '{name}' that the pattern does not define.")
    for name in sorted(groups - set(variables)):
        raise LinkifierError(f"The URL template does not use the pattern's group '{name}'.")
    return pattern, url_template


def compiled_pattern(pattern: str) -> DelimitedPattern:
    """The pattern as the renderer runs it; LinkifierError if RE2 cannot run it."""
    try:
        return delimited(pattern, _BEFORE)
    except PatternError as error:
        raise LinkifierError(f"The pattern is not a usable regular expression: {error}") from None


def compile_rules(pairs: Iterable[tuple[str, str]]) -> list[LinkifierRule]:
    """Rules for the renderer; a stored pattern RE2 cannot run (saved before patterns
    were checked as RE2) is skipped."""
    rules = []
    for pattern, url_template in pairs:
        try:
            rules.append(LinkifierRule(delimited(pattern, _BEFORE), url_template))
        except PatternError:
            continue
    return rules


def expand_url_template(template: str, values: Mapping[str, str | None]) -> str:
    """RFC 6570 expansion of string values (prefix modifiers honoured, explode a no-op)."""
    def expression(match: re.Match[str]) -> str:
        body = match.group(1)
        operator = body[0] if body[:1] in _OPERATORS else ""
        first, separator, named, reserved = _OPERATOR_RULES[operator]
        parts = []
        for varspec in body[len(operator):].split(","):
            name, _, prefix = varspec.rstrip("*").partition(":")
            value = values.get(name)
            if value is None:
                continue
            if prefix:
                value = value[:int(prefix)]
            encoded = quote(value, safe=_UNRESERVED + (_RESERVED if reserved else ""))
            if named:
                parts.append(f"{name}={encoded}" if encoded or operator != ";" else name)
            else:
                parts.append(encoded)
        return first + separator.join(parts) if parts else ""
    return _EXPRESSION.sub(expression, template)


def linkify(text: str, rules: list[LinkifierRule]) -> list[tuple[str, str | None]]:
    """The text as pieces (text, url or None): the first rule that matches a piece wins,
    and later rules only see the text earlier ones left."""
    pieces: list[tuple[str, str | None]] = [(text, None)]
    for rule in rules:
        result: list[tuple[str, str | None]] = []
        for piece, url in pieces:
            if url is not None:
                result.append((piece, url))
                continue
            encoded, position = piece.encode(), 0
            for found in rule.pattern.find(piece):
                result.append((encoded[position:found.start].decode(), None))
                result.append((found.text,
                               expand_url_template(rule.url_template, found.groups)))
                position = found.end
            result.append((encoded[position:].decode(), None))
        pieces = [(p, u) for p, u in result if p]
    return pieces


def topic_links(topic: str, rules: Sequence[LinkifierRule]) -> list[tuple[str, str]]:
    """The links of a topic name, as (matched text, URL) in the order they appear.

    Unlike message content, a topic stays plain text, so each rule is matched against the
    whole name; where matches overlap, the earlier rule's wins (then the earlier match),
    as in content, where the first rule that matches a piece takes it.
    """
    found: list[tuple[int, int, int, str, str]] = []   # (rule, start, end, text, url)
    for order, rule in enumerate(rules):
        for match in rule.pattern.find(topic):
            found.append((order, match.start, match.end, match.text,
                          expand_url_template(rule.url_template, match.groups)))
    kept: list[tuple[int, int, int, str, str]] = []
    for candidate in sorted(found):
        _, start, end, _, _ = candidate
        if all(end <= other[1] or start >= other[2] for other in kept):
            kept.append(candidate)
    return [(text, url) for _, _, _, text, url in sorted(kept, key=lambda k: k[1])]
