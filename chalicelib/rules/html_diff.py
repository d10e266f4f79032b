"""An HTML diff of two renderings of a message, for its edit history (content_html_diff).

The new rendering's markup is kept; words that are new are wrapped in
`<span class="highlight_text_inserted">`, words that went in
`<span class="highlight_text_deleted">` (their tags are dropped, so the result stays
well formed). Both inputs are the renderer's own, already escaped, output.
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher

_TOKEN = re.compile(r"<[^>]*>|[^<\s]+|\s+")
INSERTED = '<span class="highlight_text_inserted">'
DELETED = '<span class="highlight_text_deleted">'


def _tokens(html: str) -> list[str]:
    return _TOKEN.findall(html)


def _is_tag(token: str) -> bool:
    return token.startswith("<")


def _highlighted(tokens: list[str], opening: str, keep_tags: bool) -> str:
    """Runs of text wrapped in one span each; tags kept (inserted) or dropped (deleted)."""
    out: list[str] = []
    run: list[str] = []

    def close_run() -> None:
        text = "".join(run)
        if text.strip():
            out.append(f"{opening}{text}</span>")
        elif text:
            out.append(text)
        run.clear()

    for token in tokens:
        if _is_tag(token):
            close_run()
            if keep_tags:
                out.append(token)
        else:
            run.append(token)
    close_run()
    return "".join(out)


def highlight_html_differences(old_html: str, new_html: str) -> str:
    old, new = _tokens(old_html), _tokens(new_html)
    out: list[str] = []
    for op, a1, a2, b1, b2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            out.extend(new[b1:b2])
            continue
        if op in ("delete", "replace"):
            out.append(_highlighted(old[a1:a2], DELETED, keep_tags=False))
        if op in ("insert", "replace"):
            out.append(_highlighted(new[b1:b2], INSERTED, keep_tags=True))
    return f"<div>{''.join(out)}</div>"
