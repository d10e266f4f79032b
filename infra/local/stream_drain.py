"""Feeds the outbox stream to the fan-out handler synchronously, for tests and benchmarks."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
from botocore.exceptions import ClientError

from infra.local.pollers import StreamPoller, shard_iterator


class OutboxDrain:
    """Reads every outbox stream record not yet read and hands them to the fan-out at once."""

    def __init__(self) -> None:
        from chalicelib.models.events import Outbox

        self.streams = boto3.client("dynamodbstreams", region_name="us-east-1")
        table = boto3.client("dynamodb", region_name="us-east-1").describe_table(
            TableName=Outbox.Meta.table_name)["Table"]
        self.arn = table["LatestStreamArn"]
        shard = self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"][
            "Shards"][0]
        self.held = False
        self.shard_id = shard["ShardId"]
        self.last_read: str | None = None   # the sequence number of the last record read
        self.iterator = self._iterator()

    def _iterator(self) -> str:
        return shard_iterator(self.streams, self.arn, self.shard_id, self.last_read)

    def read(self) -> list[dict[str, Any]]:
        records = []
        while True:
            try:
                response = self.streams.get_records(ShardIterator=self.iterator, Limit=1000)
            except ClientError as error:
                # An iterator expires 15 minutes after it was handed out (a session of
                # tests may not read for that long): go on after the last record read.
                if error.response["Error"]["Code"] != "ExpiredIteratorException":
                    raise
                self.iterator = self._iterator()
                continue
            self.iterator = response["NextShardIterator"]
            batch = response.get("Records", [])
            if not batch:
                return records
            self.last_read = batch[-1]["dynamodb"]["SequenceNumber"]
            records.extend(StreamPoller._lambda_record(r, self.arn) for r in batch)

    def __call__(self, rounds: int = 5) -> dict[str, Any]:
        """Fans out everything committed, including records the fan-out itself writes
        (e.g. marking read what a move took out of a user's channels), up to `rounds`
        batches; returns the last batch's result."""
        from chalicelib.fanout.batch import handle_stream_batch

        result: dict[str, Any] = {"batchItemFailures": []}
        if self.held:
            return result
        for _ in range(rounds):
            records = self.read()
            if not records:
                break
            result = handle_stream_batch({"Records": records})
        return result

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Holds the stream consumer back: records committed meanwhile wait (calls do
        nothing) until the block ends; the next call fans them out in order."""
        self.held = True
        try:
            yield
        finally:
            self.held = False
