"""RFC 6570 URL templates, as code playgrounds use them: `https://host/run{?code}`.

Every level of the RFC is accepted, as the reference does: simple expansion `{code}`,
the operators `+ # . / ; ? &`, prefix and explode modifiers (`{code:30}`, `{code*}`) and
comma-separated variable lists. The reserved operators `= , ! @ |` are errors. Literal
text must be characters a URI template may contain literally, with `%` only as a
percent-encoding.
"""
from __future__ import annotations

import re

PLAYGROUND_VARIABLE = "code"

# RFC 6570 §2.3: varchar = ALPHA / DIGIT / "_" / pct-encoded; dots only between varchars;
# §2.4: a prefix of 1 to 9999 characters, or explode.
_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARSPEC = re.compile(rf"({_VARCHAR}+(?:\.{_VARCHAR}+)*)(?::[1-9][0-9]{{0,3}}|\*)?")
_OPERATORS = "+#./;?&"
# RFC 6570 §2.1: characters excluded from literals (besides CTL and non-ASCII checks below).
_NOT_LITERAL = set(" \"'<>\\^`{|}")
_PCT_ENCODED = re.compile(r"%[0-9A-Fa-f]{2}")
_SCHEMES = ("http://", "https://")
# Operators that cannot reach into the host when an expression follows it directly:
# they start the path, the query or the fragment.
_AFTER_HOST_OPERATORS = "/?#"


class UrlTemplateError(ValueError):
    """A URL template that is not a valid playground template; the message says why."""


def _expression_variables(body: str) -> list[str]:
    """The variables of one expression's body (between the braces)."""
    if body[:1] in _OPERATORS:
        body = body[1:]
    names = []
    for varspec in body.split(","):
        match = _VARSPEC.fullmatch(varspec)
        if match is None:
            # Empty, nested "{", a reserved operator or a malformed name or modifier.
            raise UrlTemplateError("The URL template is not valid.")
        names.append(match.group(1))
    return names


def template_variables(template: str) -> list[str]:
    """The variable names of all expressions, in order; UrlTemplateError if invalid."""
    variables: list[str] = []
    position = 0
    while position < len(template):
        char = template[position]
        if char == "{":
            end = template.find("}", position + 1)
            if end == -1:
                raise UrlTemplateError("The URL template is not valid.")   # unclosed expression
            variables += _expression_variables(template[position + 1:end])
            position = end + 1
        elif char == "}":
            raise UrlTemplateError("The URL template is not valid.")       # closes nothing
        elif char == "%":
            if not _PCT_ENCODED.match(template, position):
                raise UrlTemplateError("The URL template is not valid.")
            position += 3
        else:
            if char in _NOT_LITERAL or ord(char) < 0x21 or ord(char) == 0x7F:
                raise UrlTemplateError("The URL template is not valid.")
            position += 1
    return variables


def check_playground_url_template(template: str) -> str:
    """The template, if it is an http(s) URL template whose one variable is `code`."""
    variables = template_variables(template)
    scheme = next((s for s in _SCHEMES if template.lower().startswith(s)), None)
    if scheme is None:
        raise UrlTemplateError("The URL template is not valid.")
    # The host is literal text: a template cannot let the code choose where it is sent.
    rest = template[len(scheme):]
    host = re.match(r"[^/?#{]*", rest).group()   # type: ignore[union-attr]
    after = rest[len(host):len(host) + 2]
    if not host or (after.startswith("{") and after[1:] not in tuple(_AFTER_HOST_OPERATORS)):
        raise UrlTemplateError("The URL template is not valid.")
    names = set(variables)
    if PLAYGROUND_VARIABLE not in names:
        raise UrlTemplateError('The URL template needs the variable "code"')
    if len(names) != 1:
        raise UrlTemplateError('The URL template may use no variable except "code"')
    return template
