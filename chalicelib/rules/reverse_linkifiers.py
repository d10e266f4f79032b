"""What a linkifier keeps for reverse linkification (levels 471 and 478): a sample text
its pattern matches (`example_input`), the Markdown a client writes for a pasted URL
(`reverse_template`, with `{name}` for the pattern's groups), and further URL templates
that only reverse linkification reads (`alternative_url_templates`). The server stores
and shows them; clients do the reversing. Forward linkification never uses them."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from chalicelib.rules.linkifiers import LinkifierError, compiled_pattern
from chalicelib.rules.url_template import UrlTemplateError, template_variables

MAX_EXAMPLE_LENGTH = 1000
MAX_REVERSE_TEMPLATE_LENGTH = 1000
MAX_ALTERNATIVE_TEMPLATES = 10
MAX_URL_TEMPLATE_LENGTH = 1024
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class ReverseLinkification:
    example_input: str | None = None
    reverse_template: str | None = None
    alternative_url_templates: tuple[str, ...] = ()


def check_reverse_linkification(pattern: str, wanted: ReverseLinkification
                                ) -> ReverseLinkification:
    """`wanted`, if its example is matched by the (checked) pattern, its reverse template
    names only the pattern's groups and has an example, and each alternative is a URL
    template of those groups; LinkifierError says why not. Empty strings are None."""
    example = wanted.example_input or None
    reverse = wanted.reverse_template or None
    compiled = compiled_pattern(pattern)
    groups = set(compiled.group_names)
    if example is not None:
        if len(example) > MAX_EXAMPLE_LENGTH:
            raise LinkifierError(f"example_input is over the limit of "
                                 f"{MAX_EXAMPLE_LENGTH} characters")
        if not any(True for _ in compiled.find(example)):
            raise LinkifierError("The linkifier pattern does not match example_input.")
    if reverse is not None:
        if example is None:
            raise LinkifierError("reverse_template needs an example_input.")
        if len(reverse) > MAX_REVERSE_TEMPLATE_LENGTH:
            raise LinkifierError(f"reverse_template is over the limit of "
                                 f"{MAX_REVERSE_TEMPLATE_LENGTH} characters")
        _check_names(_PLACEHOLDER.findall(reverse), groups, "reverse_template")
    if len(wanted.alternative_url_templates) > MAX_ALTERNATIVE_TEMPLATES:
        raise LinkifierError(f"At most {MAX_ALTERNATIVE_TEMPLATES} alternative URL "
                             "templates.")
    for template in wanted.alternative_url_templates:
        _check_names(_alternative_variables(template), groups, "alternative URL template")
    return ReverseLinkification(example, reverse, tuple(wanted.alternative_url_templates))


def _alternative_variables(template: str) -> list[str]:
    if len(template) > MAX_URL_TEMPLATE_LENGTH or \
            not template.lower().startswith(("http://", "https://", "/")):
        raise LinkifierError("Invalid alternative URL template.")
    try:
        return template_variables(template)
    except UrlTemplateError:
        raise LinkifierError("Invalid alternative URL template.") from None


def _check_names(names: Sequence[str], groups: set[str], where: str) -> None:
    for name in names:
        if name not in groups:
            raise LinkifierError(f"Group '{name}' in {where} is not present in linkifier "
                                 "pattern.")
