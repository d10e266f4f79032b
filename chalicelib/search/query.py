"""Reading the index: the messages of a realm that match a query, newest (or oldest) first.

Cost follows the result. Each term's posting list is a Query on its own partition, read
in pages from the anchor. After a first page of every term, the sparsest list (the
one whose page reached furthest, or an exhausted one with the fewest ids) drives: its
ids are the candidates. Another term's list is read on as far as the candidates go when
that is cheaper than reading them (a page of postings costs what one message does), so
a candidate lacking that term is dropped without being read; the rest are read
(BatchGetItem, consistent) and checked against the query. So a rare word costs one
Query and one BatchGetItem per 100 matches, whatever the size of the realm; a common
word pages through its list; an AND walks its rarest term; a phrase of two common words
reads their two lists, and only the messages holding both.

The check against the stored message makes the answer exact even while the index lags
a change: an edited message no longer matching, a moved one outside the channel asked
for, a deleted one (gone) are never returned, and phrases are verified in order. Who may
read a message is not decided here: callers apply access to what this yields.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from chalicelib.models.messages import Message
from chalicelib.models.search import SearchPosting, posting_key
from chalicelib.search.terms import channel_term
from chalicelib.search.text import SearchQuery, matches

FIRST_PAGE = 100        # postings in a term's first page (a few hundred bytes of keys)
MAX_PAGE = 1000
MAX_BATCH_GET = 100     # DynamoDB's limit on keys per BatchGetItem
# A posting is ~40 bytes, a message ~1 KB: reading 100 postings of another term costs
# about what reading one candidate message does (a read unit per 4 KB).
POSTINGS_PER_MESSAGE = 100
FEW = 20                # a term with at most this many matches drives alone


@dataclass
class _Postings:
    """A term's posting list, read page by page from the anchor in the search's order."""

    realm_id: int
    term: str
    before_id: int | None
    after_id: int | None
    newest_first: bool
    ids: list[int] = field(default_factory=list)
    members: set[int] = field(default_factory=set)
    exhausted: bool = False

    def load(self, count: int) -> None:
        if self.exhausted:
            return
        upper, lower = self.before_id, self.after_id
        if self.ids:
            if self.newest_first:
                upper = self.ids[-1]
            else:
                lower = self.ids[-1]
        condition: Any = None   # a Between or a Comparison
        if upper is not None and lower is not None:
            if upper - lower <= 1:   # no id between them (DynamoDB refuses such a range)
                self.exhausted = True
                return
            condition = SearchPosting.message_id.between(lower + 1, upper - 1)
        elif upper is not None:
            condition = SearchPosting.message_id < upper
        elif lower is not None:
            condition = SearchPosting.message_id > lower
        page = [item.message_id for item in SearchPosting.query(
            posting_key(self.realm_id, self.term), range_key_condition=condition,
            scan_index_forward=not self.newest_first, limit=count, page_size=count)]
        self.ids.extend(page)
        self.members.update(page)
        self.exhausted = len(page) < count

    def covers(self, message_id: int) -> bool:
        """Whether the pages read so far tell if the term is in the message."""
        if self.exhausted or message_id in self.members:
            return True
        if not self.ids:
            return False
        last = self.ids[-1]
        return message_id >= last if self.newest_first else message_id <= last

    def _expected(self, target: int) -> float:
        """About how many postings lie between the last one read and `target`."""
        if len(self.ids) < 2:
            return float(FIRST_PAGE)
        density = len(self.ids) / (abs(self.ids[0] - self.ids[-1]) or 1)
        return density * abs(target - self.ids[-1])

    def worth_extending(self, target: int, unknown: int) -> bool:
        """Whether reading this list on to `target` costs less than reading the `unknown`
        candidates' messages (about POSTINGS_PER_MESSAGE postings cost one message)."""
        return self._expected(target) <= unknown * POSTINGS_PER_MESSAGE

    def extend_to(self, target: int) -> None:
        """Reads pages until the list covers `target` (or ends)."""
        while not self.covers(target):
            self.load(max(FIRST_PAGE, min(MAX_PAGE, int(self._expected(target) * 1.2) + 1)))

    def may_contain(self, message_id: int) -> bool:
        """False only where the pages read so far show the term is not in the message."""
        if message_id in self.members:
            return True
        if self.exhausted:
            return False
        if not self.ids:
            return True
        last = self.ids[-1]
        return message_id < last if self.newest_first else message_id > last


def _driver(lists: list[_Postings], newest_first: bool) -> _Postings:
    """The sparsest list: an exhausted one with the fewest ids, else the one whose first
    page reached furthest from the anchor."""
    exhausted = [p for p in lists if p.exhausted]
    if exhausted:
        return min(exhausted, key=lambda p: len(p.ids))
    if newest_first:
        return min(lists, key=lambda p: p.ids[-1])
    return max(lists, key=lambda p: p.ids[-1])


def search_messages(realm_id: int, query: SearchQuery, *, before_id: int | None = None,
                    after_id: int | None = None, newest_first: bool = True,
                    stream_id: int | None = None, batch: int = 50) -> Iterator[Message]:
    """The realm's messages matching `query`, lazily, newest first (or oldest first),
    with ids strictly between `after_id` and `before_id` when given; only the channel
    `stream_id`'s when given. Each is the stored message, read consistently; access is
    the caller's to apply. `batch`: how many candidates the first read checks (the
    caller's page size); later reads double it up to 100."""
    if query.is_empty:
        return
    terms = sorted(query.terms)
    if stream_id is not None:
        terms.append(channel_term(stream_id))
    lists: list[_Postings] = []
    for term in terms:
        postings = _Postings(realm_id, term, before_id, after_id, newest_first)
        postings.load(FIRST_PAGE)
        if postings.exhausted and not postings.ids:
            return   # a term no message has: nothing matches
        lists.append(postings)
        if postings.exhausted and len(postings.ids) <= FEW:
            # So rare that checking its few messages costs less than reading the other
            # terms' lists: the check against the message covers them.
            break
    driver = _driver(lists, newest_first)
    others = [p for p in lists if p is not driver]
    page, position, size = FIRST_PAGE, 0, max(1, min(batch, MAX_BATCH_GET))
    while True:
        if position >= len(driver.ids):
            if driver.exhausted:
                return
            page = min(page * 2, MAX_PAGE)
            driver.load(page)
            continue
        chunk = driver.ids[position:position + size]
        position += len(chunk)
        size = min(size * 2, MAX_BATCH_GET)
        candidates = [m for m in chunk if all(p.may_contain(m) for p in others)]
        for postings in others:
            # Another term's list, read on as far as the candidates go, rules them out
            # more cheaply than their messages would, unless it is far denser.
            unknown = [m for m in candidates if not postings.covers(m)]
            if unknown and postings.worth_extending(unknown[-1], len(unknown)):
                postings.extend_to(unknown[-1])
                candidates = [m for m in candidates if postings.may_contain(m)]
        if candidates:
            yield from _verified(realm_id, query, candidates, stream_id)


def _verified(realm_id: int, query: SearchQuery, candidates: list[int],
              stream_id: int | None) -> Iterator[Message]:
    found = {m.message_id: m for m in Message.batch_get(
        [(realm_id, message_id) for message_id in candidates], consistent_read=True)}
    for message_id in candidates:
        message = found.get(message_id)
        if message is None:
            continue   # deleted since it was indexed
        if stream_id is not None and message.stream_id != stream_id:
            continue   # moved out of the channel since
        if matches(query, message.content, message.topic if message.type == "stream" else ""):
            yield message


def matching_message_ids(realm_id: int, query: SearchQuery, *, limit: int,
                         before_id: int | None = None, after_id: int | None = None,
                         newest_first: bool = True, stream_id: int | None = None
                         ) -> list[int]:
    """The first `limit` ids `search_messages` yields, in its order."""
    ids: list[int] = []
    if limit <= 0:
        return ids
    for message in search_messages(realm_id, query, before_id=before_id, after_id=after_id,
                                   newest_first=newest_first, stream_id=stream_id,
                                   batch=limit):
        ids.append(message.message_id)
        if len(ids) >= limit:
            break
    return ids
