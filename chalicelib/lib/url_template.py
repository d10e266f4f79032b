"""RFC 6570 level-1 URL templates, as code playgrounds use them: `https://host/path?c={code}`.

Level 1 allows only simple expansion (`{name}`): no operators (`+ # . / ; ? &`), no
modifiers (`:3`, `*`), one variable per expression. Literal text must be characters a
URI template may contain literally, with `%` only as a percent-encoding.
"""
from __future__ import annotations

import re

PLAYGROUND_VARIABLE = "code"

# RFC 6570 §2.3: varchar = ALPHA / DIGIT / "_" / pct-encoded; dots only between varchars.
_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARNAME = re.compile(rf"{_VARCHAR}+(?:\.{_VARCHAR}+)*")
# RFC 6570 §2.1: characters excluded from literals (besides CTL and non-ASCII checks below).
_NOT_LITERAL = set(" \"'<>\\^`{|}")
_PCT_ENCODED = re.compile(r"%[0-9A-Fa-f]{2}")
_SCHEMES = ("http://", "https://")


class UrlTemplateError(ValueError):
    """A URL template that is not a valid playground template; the message says why."""


def template_variables(template: str) -> list[str]:
    """The variable of each expression, in order; UrlTemplateError if not level 1."""
    variables: list[str] = []
    position = 0
    while position < len(template):
        char = template[position]
        if char == "{":
            end = template.find("}", position + 1)
            if end == -1:
                raise UrlTemplateError("Invalid URL template.")   # unclosed expression
            name = template[position + 1:end]
            if not _VARNAME.fullmatch(name):
                # Empty, nested "{", an operator, a modifier or a list of variables.
                raise UrlTemplateError("Invalid URL template.")
            variables.append(name)
            position = end + 1
        elif char == "}":
            raise UrlTemplateError("Invalid URL template.")       # closes nothing
        elif char == "%":
            if not _PCT_ENCODED.match(template, position):
                raise UrlTemplateError("Invalid URL template.")
            position += 3
        else:
            if char in _NOT_LITERAL or ord(char) < 0x21 or ord(char) == 0x7F:
                raise UrlTemplateError("Invalid URL template.")
            position += 1
    return variables


def check_playground_url_template(template: str) -> str:
    """The template, if it is an http(s) URL template whose one variable is `code`."""
    variables = template_variables(template)
    scheme = next((s for s in _SCHEMES if template.lower().startswith(s)), None)
    if scheme is None:
        raise UrlTemplateError("Invalid URL template.")
    # The host is literal text: a template cannot choose where the code is sent.
    host = re.split(r"[/?#]", template[len(scheme):], maxsplit=1)[0]
    if not host or "{" in host:
        raise UrlTemplateError("Invalid URL template.")
    names = set(variables)
    if PLAYGROUND_VARIABLE not in names:
        raise UrlTemplateError('Missing the required variable "code" in the URL template')
    if len(names) != 1:
        raise UrlTemplateError('"code" should be the only variable present in the URL template')
    return template
