"""The partial batch response the SQS and stream functions give Lambda."""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib.aws.partial_batch import EntireBatchFailed, process_records


def _fail_on(*bad: str) -> Any:
    seen: list[str] = []

    def handle(record: dict[str, Any]) -> None:
        seen.append(record.get("messageId") or record["dynamodb"]["SequenceNumber"])
        if seen[-1] in bad:
            raise ValueError("bad record")

    handle.seen = seen  # type: ignore[attr-defined]
    return handle


def test_only_the_failed_records_are_reported_and_every_record_is_handled_in_order():
    handle = _fail_on("b")
    event = {"Records": [{"messageId": m, "body": "{}"} for m in "abc"]}
    assert process_records(event, handle, "sqs") == {
        "batchItemFailures": [{"itemIdentifier": "b"}]}
    assert handle.seen == ["a", "b", "c"]


def test_a_stream_record_is_reported_by_its_sequence_number():
    event = {"Records": [{"dynamodb": {"SequenceNumber": n}} for n in ("100", "200")]}
    assert process_records(event, _fail_on("200"), "dynamodb") == {
        "batchItemFailures": [{"itemIdentifier": "200"}]}


def test_a_batch_whose_every_record_failed_fails_the_invocation_unless_told_not_to():
    event = {"Records": [{"messageId": m} for m in "ab"]}
    with pytest.raises(EntireBatchFailed):
        process_records(event, _fail_on("a", "b"), "sqs")
    assert process_records(event, _fail_on("a", "b"), "sqs", raise_if_all_fail=False) == {
        "batchItemFailures": [{"itemIdentifier": "a"}, {"itemIdentifier": "b"}]}


def test_an_empty_batch_succeeds():
    assert process_records({"Records": []}, _fail_on(), "sqs") == {"batchItemFailures": []}
