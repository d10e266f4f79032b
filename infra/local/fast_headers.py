"""HTTP header blocks read without the email package, in the local stack's processes.

Every answer botocore gets from the local database, and every request the API server
reads, goes through `http.client.parse_headers`, which hands the block to the email
package's feed parser: 13 % of the API process's time, the process that saturates
first under `make load`. The header blocks of these peers are plain `Name: value`
lines; they are split here into the same message object (same class, same fields in
the same order, same values). A block with anything else in it (a folded line, a line
that is not a field, a name the parser would not take) goes to the email parser as
before. tests/unit/test_local_fast_headers.py compares the two.

Only the local stack installs it (`install()`), in the API and workers processes: on
AWS the app runs on the standard library as it is.
"""
from __future__ import annotations

import email.parser
import http.client
import re
from typing import Any

# The field names the email parser takes as a header line (email.feedparser.headerRE,
# less the continuation and "From " forms, which go to the parser itself).
_FIELD_NAME = re.compile(r"[\041-\071\073-\176]+")
_installed = False


def parse_headers(fp: Any, _class: type[http.client.HTTPMessage] = http.client.HTTPMessage
                  ) -> http.client.HTTPMessage:
    lines = http.client._read_headers(fp)  # type: ignore[attr-defined]
    message = _class()
    for raw in lines:
        if raw in (b"\r\n", b"\n", b""):
            break
        line = raw.decode("iso-8859-1")
        name, colon, value = line.partition(":")
        if not colon or _FIELD_NAME.fullmatch(name) is None or line.startswith("From "):
            return _email_parsed(lines, _class)
        message.set_raw(name, value.lstrip(" \t").rstrip("\r\n"))
    message.set_payload("")
    return message


def _email_parsed(lines: list[bytes], _class: type[http.client.HTTPMessage]
                  ) -> http.client.HTTPMessage:
    text = b"".join(lines).decode("iso-8859-1")
    return email.parser.Parser(_class=_class).parsestr(text)


def install() -> None:
    """Replaces `http.client.parse_headers` in this process (once)."""
    global _installed
    if not _installed:
        http.client.parse_headers = parse_headers  # type: ignore[assignment]
        _installed = True
