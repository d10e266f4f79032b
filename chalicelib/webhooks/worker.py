"""The SQS handler that delivers outgoing webhooks, with partial batch failures.

A job whose receiver could not be reached is returned to the queue with a longer
visibility timeout (the backoff); after the last attempt it goes to the dead-letter
queue through the queue's redrive policy.
"""
from __future__ import annotations

import json
from typing import Any

from chalicelib.aws import aws_clients, metrics
from chalicelib.aws.log import logger
from chalicelib.aws.partial_batch import PartialBatchResponse, process_records
from chalicelib.delivery.webhook_jobs import DeliveryJob
from chalicelib.webhooks.delivery import RetryLater, deliver

# deliver()'s results as the WebhookDeliveries metric's `outcome` dimension.
_OUTCOMES: dict[str, metrics.WebhookOutcome] = {
    "delivered": "success", "failed": "failure", "refused": "failure"}


def handle_webhook_batch(raw_event: dict[str, Any], context: Any = None) \
        -> PartialBatchResponse:
    logger.append_keys(handler="outgoing_webhooks")
    # A batch where every job must wait is still answered with its failures, so the
    # visibility each one was given (its backoff) decides when it comes back.
    try:
        return process_records(raw_event, _handle_record, "sqs", raise_if_all_fail=False)
    finally:
        metrics.flush()   # anything a job added to the per-invocation set
        logger.remove_keys(["handler"])


def _handle_record(record: dict[str, Any]) -> None:
    body = str(record["body"])
    if body.startswith('{"job"'):   # other background jobs (realm exports)
        # Imported here: exports are rare, and the export code (archives, uploads)
        # would otherwise load on every cold start of this function.
        from chalicelib.actions.workflows.export import run_background_job

        run_background_job(json.loads(body))
        return
    job = DeliveryJob.from_body(body)
    receive_count = int((record.get("attributes") or {}).get("ApproximateReceiveCount") or 1)
    try:
        outcome = deliver(job, receive_count)
    except RetryLater as retry:
        # 0 after the last attempt: offered again at once, SQS moves it to the DLQ.
        _delay(record, retry.delay_seconds)
        metrics.count_webhook_outcome("failure" if retry.gave_up else "retry")
        logger.info("webhook delivery will be retried",
                    extra={"message_id": job.message_id, "bot_id": job.bot_id,
                           "receive_count": receive_count, "delay": retry.delay_seconds})
        raise   # a failed record: SQS offers it again (or moves it to the DLQ)
    if outcome in _OUTCOMES:   # a duplicate copy or a job for a bot that is gone: logged only
        metrics.count_webhook_outcome(_OUTCOMES[outcome])
    logger.info("webhook job finished", extra={"message_id": job.message_id,
                                               "bot_id": job.bot_id, "outcome": outcome})


def _delay(record: dict[str, Any], seconds: int) -> None:
    queue_url = aws_clients.queue_url(str(record["eventSourceARN"]).rsplit(":", 1)[-1])
    aws_clients.sqs().change_message_visibility(
        QueueUrl=queue_url, ReceiptHandle=record["receiptHandle"], VisibilityTimeout=seconds)
