"""Global times in messages: `<time:...>` (an ISO 8601 or other date, or a UNIX
timestamp) becomes `<time datetime="<UTC, ISO 8601>">...</time>`, which clients show in
each reader's own time zone, as the reference renders it. A time that does not parse is
an error span below level 451 and, from 451, the escaped text as typed.

A markdown-it inline rule, before the autolinks (which would otherwise take
`<time:...>` as a link of scheme `time:`); code spans and blocks keep the syntax."""
from __future__ import annotations

import html
import re
from datetime import UTC, datetime

from dateutil import parser as date_parser
from markdown_it.rules_inline import StateInline

from chalicelib.core.feature_levels import level_reached

INVALID_AS_TEXT_LEVEL = 451
GLOBAL_TIME = re.compile(r"<time:([^>]*?)>")
_UNIX_TIMESTAMP = re.compile(r"-?[0-9]{1,12}(\.[0-9]+)?")


def parse_global_time(text: str) -> datetime | None:
    """The UTC moment `text` names (a time without a zone is taken as UTC), or None."""
    try:
        if _UNIX_TIMESTAMP.fullmatch(text.strip()):
            return datetime.fromtimestamp(float(text), tz=UTC)
        moment = date_parser.parse(text)
    except (ValueError, OverflowError, OSError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def global_time_html(text: str) -> str:
    moment = parse_global_time(text)
    if moment is not None:
        stamp = moment.isoformat().replace("+00:00", "Z")
        return f'<time datetime="{stamp}">{html.escape(text)}</time>'
    if level_reached(INVALID_AS_TEXT_LEVEL):
        return html.escape(f"<time:{text}>")
    return f'<span class="timestamp-error">Invalid time format: {html.escape(text)}</span>'


def global_time(state: StateInline, silent: bool) -> bool:
    """The inline rule: `<time:...>` at the current position."""
    if state.src[state.pos] != "<":
        return False
    found = GLOBAL_TIME.match(state.src, state.pos)
    if found is None:
        return False
    if not silent:
        token = state.push("html_inline", "", 0)
        token.content = global_time_html(found.group(1))
    state.pos = found.end()
    return True
