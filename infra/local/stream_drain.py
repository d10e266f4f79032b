"""Feeds the outbox stream to the fan-out handler synchronously, for tests and benchmarks."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3

from infra.local.pollers import StreamPoller


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
        self.iterator = self.streams.get_shard_iterator(
            StreamArn=self.arn, ShardId=shard["ShardId"],
            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]

    def read(self) -> list[dict[str, Any]]:
        records = []
        while True:
            response = self.streams.get_records(ShardIterator=self.iterator, Limit=1000)
            self.iterator = response["NextShardIterator"]
            batch = response.get("Records", [])
            if not batch:
                return records
            records.extend(StreamPoller._lambda_record(r, self.arn) for r in batch)

    def __call__(self, rounds: int = 5) -> dict[str, Any]:
        """Fans out everything committed, including records the fan-out itself writes
        (e.g. marking read what a move took out of a user's channels), up to `rounds`
        batches; returns the last batch's result."""
        from chalicelib.events.fanout import handle_stream_batch

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
