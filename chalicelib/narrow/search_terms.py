"""The `search` operator until the search index answers it: candidates from the realm's
messages (newest first, bounded by the range fetch's examination cap) and a plain test:
every word, case-folded, in the content or the topic. Highlighting wraps the words found
in the rendered content and the escaped topic."""
from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from chalicelib.models.messages import Message
from chalicelib.narrow.evaluate import MessageFacts

HIGHLIGHT = '<span class="highlight">{}</span>'
_TAG = re.compile(r"(<[^>]*>)")


def words_of(text: str) -> list[str]:
    return [w for w in re.findall(r"\w+", text.casefold()) if w]


def search_test(text: str, facts: MessageFacts) -> bool:
    haystack = f"{facts.content}\n{facts.topic}".casefold()
    return all(word in haystack for word in words_of(text))


def search_candidates(realm_id: int, text: str, condition: Any, forward: bool
                      ) -> Iterator[Message]:
    """The realm's messages in the bound (the evaluator applies `search_test`)."""
    yield from Message.query(realm_id, condition, scan_index_forward=forward,
                             page_size=200)


def _mark(text: str, words: list[str]) -> str:
    if not words:
        return text
    pattern = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)),
                         re.IGNORECASE)
    return pattern.sub(lambda m: HIGHLIGHT.format(m.group(0)), text)


def highlight(text: str, rendered_content: str, topic: str) -> tuple[str, str]:
    """(match_content, match_subject): the rendered content and the escaped topic with
    each searched word wrapped in the reference's highlight span (text outside tags)."""
    words = words_of(text)
    content = "".join(part if part.startswith("<") else _mark(part, words)
                      for part in _TAG.split(rendered_content))
    return content, _mark(html.escape(topic), words)
