"""Building a message from a tool's fields: text shown as text, links only to web
addresses, quoted bodies whose mentions notify nobody, topics that fit.

A tool's fields are written by whoever uses the tool (an issue's title, a commit
message): `plain` escapes them, so that Markdown, HTML and mention syntax in them are
shown as typed. Bodies that are Markdown already (a pull request's description) go
through `quoted`, which keeps their formatting but silences their mentions and keeps
them inside the quote. No address from a payload is ever fetched.
"""
from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import quote, urlsplit

from chalicelib import config

# CommonMark's backslash escapes, for the characters that could start markup inline.
_MARKUP = re.compile(r"([\\`*_\[\]<>~|&#])")
# What would start a list item or a rule at the start of a line (a field may open one).
_LIST_START = re.compile(r"^(?:(\d{1,9})([.)])(?=\s|$)|([-+]))")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
_LOUD_MENTION = re.compile(r"(?<![\w@])@(?=\*)")
_BACKTICKS = re.compile(r"`+")
MAX_URL_LENGTH = 2000
# Characters left as they are in an address; the rest ((, ), <, >, spaces, quotes,
# backslashes, non-ASCII) are percent-encoded so that the link's syntax stays whole.
_URL_SAFE = ":/?#[]@!$&'*+,;=%~-._"


def one_line(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def plain(text: str | None, limit: int = 200) -> str:
    """A field shown exactly as typed, on one line, at most `limit` characters."""
    escaped = _MARKUP.sub(r"\\\1", shorten(one_line(text or ""), limit))
    return _LIST_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}" if m.group(1)
                           else f"\\{m.group(3)}", escaped)


def safe_url(url: str | None) -> str | None:
    """An http(s) address ready to sit in a Markdown link, or None for anything else."""
    if not isinstance(url, str) or len(url) > MAX_URL_LENGTH:
        return None
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return quote(url, safe=_URL_SAFE)


def link(label: str, url: str | None) -> str:
    """`label` (Markdown, already escaped) linked to `url` when it is a web address."""
    target = safe_url(url)
    return f"[{label}]({target})" if target else label


def silenced(markdown: str) -> str:
    """Mentions made silent: a name still shows, nobody is notified, wildcards stay text."""
    return _LOUD_MENTION.sub("@_", markdown)


def quoted(markdown: str | None, limit: int = 1500, max_lines: int = 30) -> str:
    """A Markdown body as a quote: shortened, its mentions silenced, every line kept
    inside the quote."""
    text = _CONTROL.sub(lambda m: "\n" if "\n" in m.group(0) else " ",
                        (markdown or "").replace("\r\n", "\n")).strip()
    if not text:
        return ""
    lines = text.split("\n")
    text = "\n".join(lines[:max_lines]) + ("\n…" if len(lines) > max_lines else "")
    text = shorten(text, limit)
    return "\n".join(f"> {line}" if line else ">" for line in silenced(text).split("\n"))


def fenced(text: str, info: str = "", limit: int = 3000) -> str:
    """Text as a code block: the fence outlasts any run of backticks inside it."""
    body = shorten(_CONTROL.sub(lambda m: m.group(0) if m.group(0) in ("\n", "\t") else " ",
                                text), limit)
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(body)), default=0)
    fence = "`" * max(3, longest + 1)
    # Mention syntax counts inside code blocks too: silenced, it notifies nobody.
    return f"{fence}{info}\n{silenced(body)}\n{fence}"


def topic(text: str | None) -> str:
    """A topic name from a tool's text: one line, within the topic length."""
    return shorten(one_line(text or ""), config.MAX_TOPIC_LENGTH) or "(no topic)"


def bullet_list(items: list[str], more: int = 0) -> str:
    lines = [f"* {item}" for item in items]
    if more > 0:
        lines.append(f"* … and {more} more")
    return "\n".join(lines)


def code(text: str | None, limit: int = 100) -> str:
    """A short field as inline code (a branch, a tag, a hash)."""
    body = shorten(one_line(text or ""), limit)
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(body)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{ticks}{pad}{silenced(body)}{pad}{ticks}"


def when(iso: str | None) -> str | None:
    """An ISO 8601 time as "2024-03-01 02:09 UTC"; None for a missing or unset time
    (Go's zero time, which Grafana and Alertmanager send for "not yet")."""
    if not iso:
        return None
    try:
        moment = datetime.fromisoformat(iso.strip())
    except ValueError:
        return None
    if moment.year <= 1:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")
