"""The `search` operator, answered by the search package (chalicelib/search): candidates
from its index (newest or oldest first, each verified against the stored message), the
same check for a message already read (matches_narrow, negated search), and its
highlighting for match_content / match_subject."""
from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from chalicelib.models.messages import Message
from chalicelib.narrow.evaluate import MessageFacts
from chalicelib.search.query import search_messages
from chalicelib.search.text import SearchQuery, highlight, matches, parse_search_query


@lru_cache(maxsize=64)
def _query(text: str) -> SearchQuery:
    return parse_search_query(text)


def search_test(text: str, facts: MessageFacts) -> bool:
    """Whether a message already read matches the search text (content and topic)."""
    return matches(_query(text), facts.content, facts.topic)


def search_candidates(realm_id: int, text: str, *, from_id: int, below: bool,
                      newest_first: bool, stream_id: int | None, batch: int
                      ) -> Iterator[Message]:
    """The realm's messages matching the text on one side of `from_id` (ids < from_id
    if `below`, else ids >= from_id), nearest first; access is the caller's to apply."""
    before_id = from_id if below else None
    after_id = from_id - 1 if not below and from_id > 0 else None
    yield from search_messages(realm_id, _query(text), before_id=before_id,
                               after_id=after_id, newest_first=newest_first,
                               stream_id=stream_id, batch=batch)


def highlight_match(text: str, rendered_content: str, topic: str) -> tuple[str, str]:
    """(match_content, match_subject) with the reference's highlight markup."""
    return highlight(_query(text), rendered_content, topic)
