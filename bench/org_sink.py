"""Where the large-organization generator (bench/large_org.py) writes its items: straight
into in-process moto's tables, or as BatchWriteItem requests to a running local stack's
database (or any DynamoDB the environment names).

Items are DynamoDB JSON (a model's `serialize()`); the table is the model's table name.
"""
from __future__ import annotations

import collections
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

Item = dict[str, Any]
BATCH = 25             # items in one BatchWriteItem
SENDERS = 4            # BatchWriteItem requests in flight


class Sink(Protocol):
    counts: collections.Counter[str]

    def put(self, table: str, item: Item) -> None: ...

    def flush(self) -> None: ...


class MotoSink:
    """In-process moto: each item put through its backend (no HTTP, no botocore), the
    way bench/search.py builds its realms."""

    def __init__(self) -> None:
        from moto.core import DEFAULT_ACCOUNT_ID
        from moto.dynamodb.models import dynamodb_backends

        self.backend = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
        self.counts: collections.Counter[str] = collections.Counter()

    def put(self, table: str, item: Item) -> None:
        self.backend.put_item(table, item)
        self.counts[table] += 1

    def flush(self) -> None:
        return None


class BatchSink:
    """BatchWriteItem of 25 items, a few requests in flight; unprocessed items are sent
    again until none is left."""

    def __init__(self) -> None:
        import boto3

        self.client = boto3.client("dynamodb")
        self.counts: collections.Counter[str] = collections.Counter()
        self.requests = 0
        self._buffer: dict[str, list[Item]] = collections.defaultdict(list)
        self._pool = ThreadPoolExecutor(max_workers=SENDERS, thread_name_prefix="org-sink")
        self._sent: collections.deque[Future[None]] = collections.deque()

    def put(self, table: str, item: Item) -> None:
        buffer = self._buffer[table]
        buffer.append(item)
        self.counts[table] += 1
        if len(buffer) == BATCH:
            self._send(table, buffer)
            self._buffer[table] = []

    def _send(self, table: str, items: list[Item]) -> None:
        while len(self._sent) >= SENDERS * 4:   # bounded memory: wait for the oldest
            self._sent.popleft().result()
        self._sent.append(self._pool.submit(self._write, table, items))

    def _write(self, table: str, items: list[Item]) -> None:
        requests: dict[str, Any] = {table: [{"PutRequest": {"Item": i}} for i in items]}
        while requests:
            self.requests += 1
            answer = self.client.batch_write_item(RequestItems=requests)
            requests = answer.get("UnprocessedItems") or {}

    def flush(self) -> None:
        for table, items in self._buffer.items():
            if items:
                self._send(table, items)
        self._buffer.clear()
        while self._sent:
            self._sent.popleft().result()
