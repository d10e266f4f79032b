"""The floor of a load run: the same events delivered the plainest way on the same
backend, measured in the same run, so that the app's figures compare across machines.

Each sender stores its message with one `PutItem` (the send). One delivery thread, as
the stream's poller and the fan-out, takes every message stored since its last round,
writes each message once per waiting client with `BatchWriteItem` (25 items a request,
side by side: the events' storage), then hands each client's SQS queue the round's
events in one `SendMessage`; each client long-polls its queue (`ReceiveMessage`, up to
10 messages at once). No authentication, no audience, no forms, no read state, no dedup,
no ordering beyond SQS's: what remains is the work no delivery can skip (storing the
message and its events, waking the readers, the readers' reads). Senders pace their
messages as the load's senders do. Its CPU is this process's during the floor (its
senders, the delivery thread and the readers); its requests are counted on its own
clients. Delays count from the message stored, as the app's from the send's answer.
"""
from __future__ import annotations

import functools
import json
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import boto3
from botocore.config import Config

from bench.load_meter import process_cpu_seconds

BATCH_ITEMS = 25
SEND_THREADS = 16   # as the fan-out's append threads
HIDE_SECONDS = 43_200   # a received wake-up is not seen again (as the app's)


@dataclass
class FloorResult:
    messages: int
    events: int
    delays: list[float]
    cpu_seconds: float            # this process's, during the floor
    database_cpu_seconds: float
    requests: Counter[str]        # "service.Operation"
    seconds: float
    lost: int = 0
    duplicated: int = 0
    sent_ids: set[int] = field(default_factory=set)

    def dynamodb_requests(self) -> int:
        return sum(n for k, n in self.requests.items() if k.startswith("dynamodb."))


class _Floor:
    def __init__(self, endpoint: str, waiters: int) -> None:
        settings = Config(max_pool_connections=64, retries={"max_attempts": 10})
        common = {"endpoint_url": endpoint, "region_name": "us-east-1",
                  "aws_access_key_id": "bench", "aws_secret_access_key": "bench",
                  "config": settings}
        self.dynamodb = boto3.client("dynamodb", **common)
        self.sqs = boto3.client("sqs", **common)
        self.requests: Counter[str] = Counter()
        self._lock = threading.Lock()
        for client in (self.dynamodb, self.sqs):
            client.meta.events.register("before-call", self._count)
        tag = uuid.uuid4().hex[:8]
        self.table = f"load-floor-{tag}"
        self.dynamodb.create_table(
            TableName=self.table, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "q", "AttributeType": "S"},
                                  {"AttributeName": "m", "AttributeType": "N"}],
            KeySchema=[{"AttributeName": "q", "KeyType": "HASH"},
                       {"AttributeName": "m", "KeyType": "RANGE"}])
        self.queues = [self.sqs.create_queue(QueueName=f"load-floor-{tag}-{i}")["QueueUrl"]
                       for i in range(waiters)]
        self.received: list[list[tuple[int, float]]] = [[] for _ in self.queues]
        self.sent_at: dict[int, float] = {}
        self.pending: list[tuple[int, str]] = []
        self.arrived = threading.Condition()
        self.pool = ThreadPoolExecutor(SEND_THREADS, thread_name_prefix="floor-send")

    def _count(self, model: Any, **_: Any) -> None:
        with self._lock:
            self.requests[f"{model.service_model.service_name}.{model.name}"] += 1

    def send(self, message_id: int, body: str) -> None:
        """A sender's message: stored, then handed to the delivery thread."""
        self.dynamodb.put_item(TableName=self.table, Item={
            "q": {"S": "messages"}, "m": {"N": str(message_id)}, "e": {"S": body}})
        with self.arrived:
            self.sent_at[message_id] = time.monotonic()
            self.pending.append((message_id, body))
            self.arrived.notify()

    def deliver(self, done: threading.Event) -> None:
        """Rounds of every message stored since the last: events stored, readers woken."""
        while True:
            with self.arrived:
                while not self.pending and not done.is_set():
                    self.arrived.wait(0.5)
                if not self.pending:
                    return
                round_, self.pending = self.pending, []
            items = [{"PutRequest": {"Item": {"q": {"S": str(i)}, "m": {"N": str(m)},
                                              "e": {"S": body}}}}
                     for i in range(len(self.queues)) for m, body in round_]
            list(self.pool.map(lambda chunk: self.dynamodb.batch_write_item(
                RequestItems={self.table: chunk}),
                [items[i:i + BATCH_ITEMS] for i in range(0, len(items), BATCH_ITEMS)]))
            carried = json.dumps({"events": [{"id": m, "event": b} for m, b in round_]})
            list(self.pool.map(functools.partial(self._wake, carried), self.queues))

    def _wake(self, carried: str, url: str) -> None:
        self.sqs.send_message(QueueUrl=url, MessageBody=carried)

    def read(self, index: int, done: threading.Event) -> None:
        url = self.queues[index]
        while not done.is_set():
            messages = self.sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1,
                                                MaxNumberOfMessages=10,
                                                VisibilityTimeout=HIDE_SECONDS)
            now = time.monotonic()
            for message in messages.get("Messages", []):
                for event in json.loads(message["Body"])["events"]:
                    self.received[index].append((event["id"], now))

    def remove(self) -> None:
        self.pool.shutdown()
        self.dynamodb.delete_table(TableName=self.table)
        for url in self.queues:
            self.sqs.delete_queue(QueueUrl=url)


def run_floor(endpoint: str, database_pid: int | None, senders: int, waiters: int,
              rate: float, seconds: float, drain_seconds: float = 60.0) -> FloorResult:
    """The floor at `rate` messages a second from `senders` for `seconds`."""
    floor = _Floor(endpoint, waiters)
    done, stop = threading.Event(), threading.Event()
    readers = [threading.Thread(target=floor.read, args=(i, done), daemon=True)
               for i in range(waiters)]
    counter = iter(range(1, 1 << 62))
    counter_lock = threading.Lock()
    interval = senders / rate

    def sender(number: int) -> None:
        next_at = time.monotonic() + interval * number / senders
        while not stop.wait(max(0.0, next_at - time.monotonic())):
            next_at += interval
            with counter_lock:
                message_id = next(counter)
            floor.send(message_id, json.dumps({"type": "message", "id": message_id,
                                               "content": f"floor {number}",
                                               "sender": number}))

    writers = [threading.Thread(target=sender, args=(n,), daemon=True)
               for n in range(senders)]
    delivering = threading.Thread(target=floor.deliver, args=(stop,), daemon=True)
    for thread in [*readers, delivering]:
        thread.start()
    cpu, database_cpu = process_cpu_seconds_self(), process_cpu_seconds(database_pid or 0)
    requests_before = floor.requests.copy()
    started = time.monotonic()
    for thread in writers:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in writers:
        thread.join()
    delivering.join()
    wanted = set(floor.sent_at)
    deadline = time.monotonic() + drain_seconds
    while time.monotonic() < deadline and not all(
            wanted <= {m for m, _ in got} for got in floor.received):
        time.sleep(0.2)
    elapsed = time.monotonic() - started
    cpu = process_cpu_seconds_self() - cpu
    database_cpu = process_cpu_seconds(database_pid or 0) - database_cpu
    requests = floor.requests - requests_before
    done.set()
    for thread in readers:
        thread.join()
    delays, lost, duplicated = [], 0, 0
    for got in floor.received:
        ids = Counter(m for m, _ in got)
        lost += len(wanted - set(ids))
        duplicated += sum(n - 1 for n in ids.values() if n > 1)
        delays += [at - floor.sent_at[m] for m, at in got if m in floor.sent_at]
    floor.remove()
    return FloorResult(len(wanted), sum(len(g) for g in floor.received), delays, cpu,
                       database_cpu, requests, elapsed, lost, duplicated, wanted)


def process_cpu_seconds_self() -> float:
    return time.process_time()
