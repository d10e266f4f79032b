"""The side of an anchor a read covers (`Bound`), and the reads every candidate source
shares: messages by id in batches, and Queries read in pages that grow."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from chalicelib.models.messages import Message

MESSAGES_PER_READ = 100    # BatchGetItem's limit
PAGE_SIZE = 200            # Query page for sources the narrow filters further
FIRST_PAGE = 16            # a merged source's first page: most sources give few items
NO_END = 2**63 - 1         # above every message id: an open end

T = TypeVar("T")


@dataclass(frozen=True)
class Bound:
    """Where to look from the anchor: ids >= value or < value, read in id order
    (`forward`) or from the newest down."""

    op: Literal[">=", "<"]
    value: int
    forward: bool

    def on(self, attribute: Any) -> Any:
        return attribute >= self.value if self.op == ">=" else attribute < self.value

    def admits(self, message_id: int) -> bool:
        return message_id >= self.value if self.op == ">=" else message_id < self.value

    def within(self, low: int, high: int | None) -> tuple[int, int] | None:
        """The ids of [low, high] (None: no end) on this side, or None if none are."""
        if self.op == ">=":
            low = max(low, self.value)
        else:
            high = self.value - 1 if high is None else min(high, self.value - 1)
        if high is not None and low > high:
            return None
        return low, high if high is not None else NO_END


def load_messages(realm_id: int, message_ids: Iterable[int]) -> list[Message]:
    """The messages in the order given (BatchGetItem, 100 a request)."""
    ids = list(message_ids)
    found: dict[int, Message] = {}
    for start in range(0, len(ids), MESSAGES_PER_READ):
        chunk = ids[start:start + MESSAGES_PER_READ]
        found.update((m.message_id, m) for m in Message.batch_get(
            [(realm_id, i) for i in chunk]))
    return [found[i] for i in ids if i in found]


def messages_of(realm_id: int, ids: Iterator[int]) -> Iterator[Message]:
    """The messages of a stream of ids, read 100 at a time as they are needed."""
    while chunk := [i for _, i in zip(range(MESSAGES_PER_READ), ids, strict=False)]:
        yield from load_messages(realm_id, chunk)


def growing_pages(query: Callable[..., Iterable[T]], first: int = FIRST_PAGE,
                  most: int = PAGE_SIZE) -> Iterator[T]:
    """A Query's items in pages of `first` items, then four times more each page up to
    `most`: a source merged with many others is usually asked for few items, and one
    read far pays few requests. `query` takes limit, page_size and last_evaluated_key."""
    size, start = first, None
    while True:
        page: Any = query(limit=size, page_size=size, last_evaluated_key=start)
        yield from page
        start = page.last_evaluated_key
        if start is None:
            return
        size = min(size * 4, most)
