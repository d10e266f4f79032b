"""Where the large-organization generator (bench/large_org.py) writes its items: into
in-process moto's tables (through its PutItem, or placed straight into them), or as
BatchWriteItem requests to a running local stack's database (or any DynamoDB the
environment names).

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


class TableLoader:
    """In-process moto, each item placed straight into its table as a restored snapshot
    holds it: what a PutItem adds around that (type and key-size validation of every
    attribute, a read of the item it replaces, the lock, index upkeep) is most of an
    item's cost, for items the app's own models just serialized. The key's types and
    the item's size are still checked; each table's secondary indexes are rebuilt on
    its next Query (infra/moto_indexes.py)."""

    def __init__(self) -> None:
        from moto.core import DEFAULT_ACCOUNT_ID
        from moto.dynamodb.models import dynamodb_backends

        self.backend = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
        self.counts: collections.Counter[str] = collections.Counter()
        self._tables: dict[str, Any] = {}

    def put(self, table: str, item: Item) -> None:
        from moto.dynamodb.models.dynamo_type import DynamoType
        from moto.dynamodb.models.dynamo_type import Item as MotoItem

        target = self._tables.get(table)
        if target is None:
            target = self._tables[table] = self.backend.get_table(table)
        if target.stream_shard is not None:   # a stream records each write: PutItem's job
            self.backend.put_item(table, item)
            self.counts[table] += 1
            return
        hash_value = DynamoType(item[target.hash_key_attr])
        range_value = (DynamoType(item[target.range_key_attr])
                       if target.range_key_attr else None)
        if hash_value.type != target.hash_key_type or (
                range_value is not None and range_value.type != target.range_key_type):
            raise ValueError(f"{table}: a key of the wrong type in {item}")
        placed = MotoItem(hash_value, range_value, item)   # checks the item's size
        if range_value is None:
            target.items[hash_value] = placed
        else:
            target.items[hash_value][range_value] = placed
        self.counts[table] += 1

    def flush(self) -> None:
        from infra import moto_indexes

        for target in self._tables.values():
            moto_indexes.forget(target)   # items were placed behind the indexes' back


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
