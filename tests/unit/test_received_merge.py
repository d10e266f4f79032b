"""The received messages' merge (actions/messages/reads/received_feed.py): one order over
many sources, each id once, and a source opened only when the merge reaches the nearest
id it can hold, so a page of the newest messages reads only the sources active since."""
from __future__ import annotations

from collections.abc import Iterator

from chalicelib.actions.messages.reads.received_feed import Source, merged
from chalicelib.models.messages import Message


def source(ids: list[int], reach: int, opened: list[int]) -> Source:
    def read() -> Iterator[Message]:
        opened.append(reach)
        return iter([Message(1, i) for i in ids])
    return Source(reach, read)


def test_newest_first_opens_only_the_sources_it_reaches():
    opened: list[int] = []
    sources = [source([90, 50, 10], 90, opened), source([80, 70], 80, opened),
               source([30, 20], 30, opened), source([5], 5, opened)]
    merge = merged(sources, forward=False)
    assert [next(merge).message_id for _ in range(3)] == [90, 80, 70]
    assert opened == [90, 80]   # the channels whose newest is older were never read
    assert [m.message_id for m in merge] == [50, 30, 20, 10, 5]
    assert opened == [90, 80, 30, 5]


def test_forward_takes_the_oldest_first_and_each_id_once():
    opened: list[int] = []
    sources = [source([3, 7, 9], 3, opened), source([7, 8], 7, opened),
               source([20], 20, opened)]
    merge = merged(sources, forward=True)
    assert [next(merge).message_id for _ in range(2)] == [3, 7]
    assert opened == [3, 7]
    assert [m.message_id for m in merge] == [8, 9, 20]


def test_no_source_is_nothing():
    assert list(merged([], forward=False)) == []
