"""Partial batch responses for the SQS and DynamoDB-stream functions.

Each record is handled alone; a record whose handler raises is reported back in
`batchItemFailures` (the mapping's `ReportBatchItemFailures`), so only it is offered
again. As with powertools' BatchProcessor, a batch in which every record failed raises
instead, so the stream mapping retries it whole (and bisects it). This replaces that
processor: it is a loop, and importing the processor costs a function's cold start
powertools' every event data class and asyncio (about 80 ms of CPU).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypedDict

from chalicelib.aws.log import logger

RecordSource = Literal["sqs", "dynamodb"]


class ItemFailure(TypedDict):
    itemIdentifier: str


class PartialBatchResponse(TypedDict):
    batchItemFailures: list[ItemFailure]


class EntireBatchFailed(Exception):
    """Every record of the batch failed: the invocation fails, the whole batch is
    offered again."""


def record_id(record: dict[str, Any], source: RecordSource) -> str:
    """The identifier Lambda expects back for a failed record."""
    if source == "sqs":
        return str(record["messageId"])
    return str(record["dynamodb"]["SequenceNumber"])


def process_records(raw_event: dict[str, Any], handle: Callable[[dict[str, Any]], None],
                    source: RecordSource, *, raise_if_all_fail: bool = True
                    ) -> PartialBatchResponse:
    """Runs `handle` on each record of the event, in order; returns the failures."""
    records: list[dict[str, Any]] = raw_event.get("Records") or []
    failures: list[ItemFailure] = []
    for record in records:
        try:
            handle(record)
        except Exception:  # noqa: BLE001 - the record is reported failed and retried
            failed = record_id(record, source)
            logger.warning("record failed; it will be offered again", exc_info=True,
                           extra={"record_id": failed})
            failures.append({"itemIdentifier": failed})
    if raise_if_all_fail and records and len(failures) == len(records):
        raise EntireBatchFailed(f"all {len(records)} records failed")
    return {"batchItemFailures": failures}
