"""Outgoing-webhook delivery jobs: their outbox record, their SQS body, and sending them.

Apart from `triggers.py` (which bots a message triggers) so that the fan-out, which only
forwards jobs to SQS, does not load the bot and user code at its cold start.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chalicelib import config
from chalicelib.aws import aws_clients
from chalicelib.aws.log import logger

if TYPE_CHECKING:
    from mypy_boto3_sqs.type_defs import SendMessageBatchRequestEntryTypeDef

SQS_BATCH_COUNT, SQS_BATCH_BYTES = 10, 250_000   # SQS: 10 messages, 256 KiB per request


@dataclass(frozen=True)
class DeliveryJob:
    realm_id: int
    message_id: int
    bot_id: int
    trigger: str
    message: dict[str, Any]   # as sent: later edits do not change what the bot gets

    @classmethod
    def from_body(cls, body: str) -> DeliveryJob:
        data = json.loads(body)
        return cls(int(data["realm_id"]), int(data["message_id"]), int(data["bot_id"]),
                   str(data["trigger"]), dict(data["message"]))


def job_body(record_event: dict[str, Any]) -> str:
    """The SQS message body for an outbox job record (UTF-8: half the size of escapes)."""
    if "job" in record_event:   # another background job sharing the queue (realm exports)
        return json.dumps({k: v for k, v in record_event.items() if k != "type"})
    return json.dumps({k: record_event[k] for k in DeliveryJob.__dataclass_fields__},
                      ensure_ascii=False)


def enqueue_jobs(jobs: list[tuple[str, dict[str, Any]]]) -> set[str]:
    """Sends (stream sequence number, outbox job record) pairs to the webhook queue in
    batches within SQS's limits (10 messages, 256 KB); returns the sequence numbers
    that failed, for the stream to offer again (the worker's claim absorbs repeats)."""
    sqs = aws_clients.sqs()
    try:
        queue_url = aws_clients.queue_url(config.webhook_queue_name())
    except Exception:  # noqa: BLE001 - every job is reported failed, retried by the stream
        logger.exception("webhook queue lookup failed")
        return {sequence for sequence, _ in jobs}
    failed: set[str] = set()
    for chunk in _sqs_batches([(sequence, job_body(event)) for sequence, event in jobs]):
        entries: list[SendMessageBatchRequestEntryTypeDef] = [
            {"Id": str(i), "MessageBody": body} for i, (_, body) in enumerate(chunk)]
        try:
            result = sqs.send_message_batch(QueueUrl=queue_url, Entries=entries)
        except Exception:  # noqa: BLE001 - reported as failed records, retried by the stream
            logger.exception("webhook enqueue failed")
            failed |= {sequence for sequence, _ in chunk}
            continue
        failed |= {chunk[int(f["Id"])][0] for f in result.get("Failed", [])}
    return failed


def _sqs_batches(bodies: list[tuple[str, str]]) -> Iterator[list[tuple[str, str]]]:
    chunk: list[tuple[str, str]] = []
    size = 0
    for sequence, body in bodies:
        length = len(body.encode())
        if chunk and (len(chunk) == SQS_BATCH_COUNT or size + length > SQS_BATCH_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append((sequence, body))
        size += length
    if chunk:
        yield chunk
