"""The recipients' rows of a large audience, written in slices by other invocations
(fanout/write_slices.py): every recipient's marker and flag row, once, and a failed
slice fails the batch until a retry writes them all."""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib.fanout import write_slices
from chalicelib.fanout.batch import handle_stream_batch
from chalicelib.models.users import User
from tests.functional.edit_helpers import channel
from tests.functional.read_state_helpers import flags_of, unread_ids


@pytest.fixture
def small_write_slices(monkeypatch) -> list[dict[str, Any]]:
    """Write slices of 2 rows, run in this process; returns the payloads they carried."""
    monkeypatch.setenv("FANOUT_SLICE_ITEMS", "2")
    carried: list[dict[str, Any]] = []
    run = write_slices.write_in_process

    def recording(payload: dict[str, Any]) -> Any:
        carried.append(payload)
        return run(payload)

    monkeypatch.setattr(write_slices, "write_in_process", recording)
    return carried


def _audience(realm) -> list:
    readers = [realm.admin, realm.member, realm.add_user("Rita Reader"),
               realm.add_user("Sam Reader")]
    channel(realm.owner, "hall", [realm.owner, *readers])
    return readers


def test_a_large_audience_s_rows_are_written_in_slices_and_each_reader_has_them(
        realm, drain_events, small_write_slices):
    readers = _audience(realm)
    drain_events()
    response = realm.owner.post("/messages", {"type": "stream", "to": "hall", "topic": "t",
                                              "content": "@**Rita Reader** look"})
    assert response.ok, response.json
    message_id = response.json["id"]
    drain_events()
    # 4 markers and Rita's flag row: 5 rows, slices of 2; this invocation kept 2.
    assert sorted(len(p["writes"]) for p in small_write_slices) == [1, 2]
    assert {name for p in small_write_slices for name, _ in p["writes"]} <= {
        "UnreadMessage", "MessageFlag"}
    for reader in readers:
        assert message_id in unread_ids(reader)
    assert "mentioned" in flags_of(readers[2], message_id)
    assert "mentioned" not in flags_of(readers[3], message_id)


def test_a_failed_write_slice_fails_the_record_and_the_retry_writes_every_row(
        realm, drain_events, small_write_slices, monkeypatch):
    readers = _audience(realm)
    drain_events()
    response = realm.owner.post("/messages", {"type": "stream", "to": "hall", "topic": "t",
                                              "content": "soon"})
    message_id = response.json["id"]
    records = drain_events.read()
    run = write_slices.write_in_process

    def last_slice_fails(payload: dict[str, Any]) -> Any:
        if len(payload["writes"]) == 2 and len(small_write_slices) == 0:
            small_write_slices.append(payload)
            raise RuntimeError("the slice's invocation timed out")
        return run(payload)

    monkeypatch.setattr(write_slices, "write_in_process", last_slice_fails)
    result = handle_stream_batch({"Records": records})
    message_records = [r["dynamodb"]["SequenceNumber"] for r in records
                       if "soon" in str(r)]
    assert [f["itemIdentifier"] for f in result["batchItemFailures"]] == message_records
    monkeypatch.setattr(write_slices, "write_in_process", run)
    assert handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    for reader in readers:
        assert unread_ids(reader).count(message_id) == 1


def test_a_write_slice_carries_only_recipients_rows():
    with pytest.raises(TypeError, match="User"):
        write_slices.encode_items([User(1, 2)])
