"""Threads that feed DynamoDB stream and SQS records to the app's own event handlers.

`chalice local` serves HTTP routes only; on AWS, Lambda's event source mappings call
the handlers. These pollers play that part locally, including partial batch failures
with bounded retries (the mappings' ReportBatchItemFailures and MaximumRetryAttempts).
"""
from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
from aws_lambda_powertools import Logger

from chalicelib.fanout.lag import BEHIND_SECONDS, record_age_seconds, write_local
from infra.local import stage_meter
from infra.moto_patches import STREAM_WAIT_HEADER

logger = Logger(service="teamchat-local")
MAX_RETRIES = 3
# An idle SQS poller waits this long in one receive (moto answers as soon as a message
# is sent). Short polls every 50 ms cost the database 34 requests a second at rest, and
# under load those requests waited in line with the fan-out's.
SQS_WAIT_SECONDS = 1


class LambdaContext:
    """The attributes of a Lambda context object that handlers and powertools read."""

    def __init__(self, function_name: str, timeout_seconds: int = 60) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = 128
        self.invoked_function_arn = (
            f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}")
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "local"
        self._deadline = time.time() + timeout_seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.time()) * 1000))


def _failed_ids(result: Any) -> set[str]:
    if not isinstance(result, dict):
        return set()
    return {item["itemIdentifier"] for item in result.get("batchItemFailures", [])}


class LagReporter:
    """Keeps the fan-out's lag in the state directory (`chalicelib.admin status` reads
    it) and says on the console when delivery falls behind, and when it caught up."""

    WRITE_EVERY = 1.0     # seconds between writes of an unchanged state
    WARN_EVERY = 10.0     # seconds between two warnings while still behind

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.written_at = self.warned_at = 0.0
        self.behind = False

    def batch(self, records: list[dict[str, Any]]) -> None:
        ages = [record_age_seconds(r["dynamodb"].get("ApproximateCreationDateTime"))
                for r in records]
        self._report(max(ages, default=0.0), len(records))

    def idle(self) -> None:
        if self.behind or time.monotonic() - self.written_at > 30:
            self._report(0.0, 0)

    def _report(self, lag_seconds: float, records: int) -> None:
        now = time.monotonic()
        behind = lag_seconds > BEHIND_SECONDS
        if behind and now - self.warned_at > self.WARN_EVERY:
            print(f"warning: event delivery is {lag_seconds:.1f} s behind (the fan-out got "
                  f"a batch of {records} records that old); clients see events late",
                  flush=True)
            self.warned_at = now
        elif self.behind and not behind:
            print("event delivery caught up", flush=True)
        if behind != self.behind or now - self.written_at > self.WRITE_EVERY:
            write_local(self.state_dir, lag_seconds, records)
            self.written_at = now
        self.behind = behind


def shard_iterator(streams: Any, arn: str, shard_id: str, after: str | None) -> str:
    """An iterator from the shard's start, or after the record with sequence number
    `after` (a reader going on where it left off)."""
    position: dict[str, Any] = {"ShardIteratorType": "TRIM_HORIZON"} if after is None \
        else {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": after}
    return streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                      **position)["ShardIterator"]


STREAM_WAIT_MS = 1000   # the longest an idle stream read waits for a record


def _ask_to_wait(request: Any, **_: Any) -> None:
    request.headers[STREAM_WAIT_HEADER] = str(STREAM_WAIT_MS)


class StreamPoller(threading.Thread):
    """Reads one table's stream and calls a handler with Lambda-shaped batches."""

    def __init__(self, handler: Callable[[dict, Any], Any], name: str, table_name: str,
                 position_file: Path, stop: threading.Event, interval: float = 0.02) -> None:
        super().__init__(name=f"stream-poller-{name}", daemon=True)
        self.handler, self.function_name, self.table_name = handler, name, table_name
        self.position_file, self.stop, self.interval = position_file, stop, interval
        self.streams = boto3.client("dynamodbstreams")
        # Reads of an idle stream wait in the database for the next record (locally
        # only: infra/moto_patches.py) instead of coming back every 20 ms.
        self.streams.meta.events.register("before-sign.dynamodbstreams.GetRecords",
                                          _ask_to_wait)
        self.dynamodb = boto3.client("dynamodb")
        self.lag = LagReporter(position_file.parent)

    def run(self) -> None:
        arn = self.dynamodb.describe_table(TableName=self.table_name)["Table"]["LatestStreamArn"]
        shard = self.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
        iterator = self._first_iterator(arn, shard["ShardId"])
        while not self.stop.is_set():
            try:
                with stage_meter.stage("stream"):
                    response = self.streams.get_records(ShardIterator=iterator, Limit=100)
            except Exception:
                logger.exception("stream read failed", extra={"table": self.table_name})
                time.sleep(1)
                # An iterator expires 15 minutes after it was handed out: start again
                # after the last record delivered.
                iterator = self._fresh_iterator(arn, shard["ShardId"], iterator)
                continue
            iterator = response["NextShardIterator"]
            records = response.get("Records", [])
            if not records:
                self.lag.idle()
                self.stop.wait(self.interval)
                continue
            self.lag.batch(records)
            with stage_meter.stage("stream"):
                batch = [self._lambda_record(r, arn) for r in records]
            with stage_meter.stage("fan-out"):
                self._deliver(batch)
            self._save_position(records[-1]["dynamodb"]["SequenceNumber"])

    def _fresh_iterator(self, arn: str, shard_id: str, current: str) -> str:
        try:
            return self._first_iterator(arn, shard_id)
        except Exception:   # the database may be away: try again later
            logger.exception("stream position read failed", extra={"table": self.table_name})
            return current

    def _save_position(self, sequence_number: str) -> None:
        # Replaced whole: a crash mid-write must not leave an empty position (which
        # would replay the stream from its start).
        temporary = self.position_file.with_suffix(".tmp")
        temporary.write_text(sequence_number)
        os.replace(temporary, self.position_file)

    def _first_iterator(self, arn: str, shard_id: str) -> str:
        position = self.position_file.read_text().strip() if self.position_file.exists() else ""
        return shard_iterator(self.streams, arn, shard_id, position or None)

    @staticmethod
    def _lambda_record(record: dict[str, Any], arn: str) -> dict[str, Any]:
        data = dict(record["dynamodb"])
        created = data.get("ApproximateCreationDateTime")
        if isinstance(created, datetime):
            data["ApproximateCreationDateTime"] = created.timestamp()
        return {"eventID": record["eventID"], "eventName": record["eventName"],
                "eventVersion": record.get("eventVersion", "1.1"), "eventSource": "aws:dynamodb",
                "awsRegion": record.get("awsRegion", "us-east-1"), "dynamodb": data,
                "eventSourceARN": arn}

    def _deliver(self, records: list[dict[str, Any]]) -> None:
        pending = records
        for _attempt in range(MAX_RETRIES + 1):
            try:
                result = self.handler({"Records": pending}, LambdaContext(self.function_name))
                failed = _failed_ids(result)
            except Exception:
                logger.exception("stream handler failed", extra={"function": self.function_name})
                failed = {r["dynamodb"]["SequenceNumber"] for r in pending}
            pending = [r for r in pending if r["dynamodb"]["SequenceNumber"] in failed]
            if not pending:
                return
        logger.error("dropping records after retries (the on-failure destination on AWS)",
                     extra={"sequence_numbers": [r["dynamodb"]["SequenceNumber"] for r in pending]})


class SqsPoller(threading.Thread):
    """Long-polls one queue and calls a handler with Lambda-shaped SQS batches."""

    def __init__(self, handler: Callable[[dict, Any], Any], name: str, queue_name: str,
                 stop: threading.Event, batch_size: int = 10) -> None:
        super().__init__(name=f"sqs-poller-{name}", daemon=True)
        self.handler, self.function_name, self.stop = handler, name, stop
        self.batch_size = batch_size
        self.sqs = boto3.client("sqs")
        self.queue_url = self.sqs.get_queue_url(QueueName=queue_name)["QueueUrl"]
        self.queue_arn = self.sqs.get_queue_attributes(
            QueueUrl=self.queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.poll_once(wait_seconds=SQS_WAIT_SECONDS)
            except Exception:
                logger.exception("queue read failed", extra={"queue": self.queue_url})
                time.sleep(1)

    def poll_once(self, wait_seconds: int = 0) -> int:
        """Receives up to a batch of visible messages for the handler; returns how many."""
        messages = self.sqs.receive_message(
            QueueUrl=self.queue_url, MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=wait_seconds,
            AttributeNames=["All"]).get("Messages", [])
        if messages:
            self._deliver(messages)
        return len(messages)

    def _deliver(self, messages: list[dict[str, Any]]) -> None:
        records = [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"],
                    "body": m["Body"], "attributes": m.get("Attributes", {}),
                    "messageAttributes": m.get("MessageAttributes", {}),
                    "md5OfBody": m.get("MD5OfBody", ""), "eventSource": "aws:sqs",
                    "eventSourceARN": self.queue_arn, "awsRegion": "us-east-1"}
                   for m in messages]
        try:
            failed = _failed_ids(self.handler({"Records": records},
                                              LambdaContext(self.function_name)))
        except Exception:
            logger.exception("queue handler failed", extra={"function": self.function_name})
            return
        done = [{"Id": str(i), "ReceiptHandle": r["receiptHandle"]}
                for i, r in enumerate(records) if r["messageId"] not in failed]
        if done:   # one request per batch, as Lambda's SQS poller does
            self.sqs.delete_message_batch(QueueUrl=self.queue_url, Entries=done)


class ScheduleRunner(threading.Thread):
    """Calls a scheduled handler at its rate, as EventBridge does on AWS.

    LOCAL_SCHEDULE_<NAME>_SECONDS overrides the rate (tests use short ones)."""

    def __init__(self, handler: Callable[[dict, Any], Any], name: str, seconds: float,
                 stop: threading.Event) -> None:
        super().__init__(name=f"schedule-{name}", daemon=True)
        self.handler, self.function_name, self.stop = handler, name, stop
        self.seconds = float(os.environ.get(f"LOCAL_SCHEDULE_{name.upper()}_SECONDS", seconds))

    def run(self) -> None:
        while not self.stop.wait(self.seconds):
            event = {"version": "0", "id": str(uuid.uuid4()), "detail-type": "Scheduled Event",
                     "source": "aws.events", "account": "123456789012",
                     "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "region": "us-east-1", "resources": [], "detail": {}}
            try:
                self.handler(event, LambdaContext(self.function_name))
            except Exception:
                logger.exception("scheduled handler failed",
                                 extra={"function": self.function_name})


def rate_seconds(expression: Any) -> float:
    """Seconds between runs of a chalice Rate."""
    per = {"MINUTES": 60, "HOURS": 3600, "DAYS": 86400}[str(expression.unit).upper()]
    return float(expression.value) * per


def start_pollers(app: Any, prefix: str, state: Path, stop: threading.Event
                  ) -> list[threading.Thread]:
    """One poller per event source the app declares (stream sources map to the outbox),
    and a runner per schedule."""
    from chalice.app import DynamoDBEventConfig, ScheduledEventConfig, SQSEventConfig

    threads: list[threading.Thread] = []
    for source in app.event_sources:
        handler = app.handler_map[source.name]
        if isinstance(source, DynamoDBEventConfig):
            # The decorator's ARN is a placeholder; locally the outbox is the only stream.
            threads.append(StreamPoller(handler, source.name, prefix + "outbox",
                                        state / f"stream-position-{source.name}", stop))
        elif isinstance(source, SQSEventConfig):
            threads.append(SqsPoller(handler, source.name, source.queue, stop,
                                     batch_size=source.batch_size))
        elif isinstance(source, ScheduledEventConfig):
            threads.append(ScheduleRunner(handler, source.name,
                                          rate_seconds(source.schedule_expression), stop))
    if "scheduled_messages" in app.handler_map:   # one-time schedules (moto never fires)
        from infra.local.schedules import DueScheduleRunner
        threads.append(DueScheduleRunner(app.handler_map["scheduled_messages"], stop))
    for thread in threads:
        thread.start()
    return threads
