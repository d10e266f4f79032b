"""Markdown to safe HTML with markdown-it-py (CommonMark, raw HTML disabled)."""
from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    # html=False escapes raw HTML; markdown-it also refuses javascript:/data: links.
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "breaks": True})
    md.enable(["table", "strikethrough"])
    return md


def render_markdown(text: str) -> str:
    if not text:
        return ""
    return _renderer().render(text).strip()
