"""models/side_by_side.py: many BatchWriteItem requests side by side, every item written."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.models import side_by_side as module
from chalicelib.models.fanout_marks import FanoutMark
from chalicelib.models.search import SearchPosting, posting_key
from chalicelib.models.side_by_side import side_by_side, write_all


def test_puts_and_deletes_of_several_models_all_land(realm):
    expires = datetime.now(UTC) + timedelta(days=1)
    marks = [FanoutMark(f"bench-{n}", expires_at=expires) for n in range(60)]
    postings = [SearchPosting(posting_key(realm.realm_id, "word"), n) for n in range(40)]
    requests = []
    original = module._write
    module._write = lambda chunk: (requests.append(len(chunk)), original(chunk))[1]
    try:
        write_all(marks + postings)
    finally:
        module._write = original
    assert sorted(requests) == [10, 15, 25, 25, 25]   # 25 to a request, per model
    assert {m.mark for m in FanoutMark.batch_get([m.mark for m in marks])} == \
        {m.mark for m in marks}
    assert len(list(SearchPosting.query(posting_key(realm.realm_id, "word")))) == 40
    write_all(deletes=postings[:30])
    assert len(list(SearchPosting.query(posting_key(realm.realm_id, "word")))) == 10


def test_an_error_in_one_call_is_raised_after_every_call_ended():
    ended = []

    def work(n: int) -> int:
        if n == 3:
            raise ValueError("three")
        ended.append(n)
        return n * 2

    with pytest.raises(ValueError, match="three"):
        side_by_side(work, range(8))
    assert sorted(ended) == [0, 1, 2, 4, 5, 6, 7]
    assert side_by_side(work, [5, 1, 2]) == [10, 2, 4]
