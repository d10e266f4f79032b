"""Fan-out figures on in-process moto: per event and queue, and one event to 10-1,000 queues.

Each figure runs the real stream handler on real outbox records (a message sent through
the API), then replays the previous design's requests for the same events and queues
(bench/legacy_events.py), counted by the same RequestCounter.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import boto3

from bench.common import RequestCounter
from bench.legacy_events import create_legacy_queues, legacy_fanout, legacy_prune

# The tables of the event pipeline itself (the rest of a fan-out's writes is read state).
QUEUE_TABLES = {"queue_events", "event_queues", "user_queues", "ws_connections", "outbox"}
OPTIONS = {"event_types": ["message"], "narrow": [], "client_capabilities": {},
           "all_public_streams": False, "apply_markdown": False, "client_gravatar": False}


@dataclass
class Cost:
    """What one measured step cost: requests by operation, units, seconds."""

    requests: dict[str, int]
    write: float
    read: float
    seconds: float
    tables: dict[tuple[str, str], float]

    @property
    def dynamodb_requests(self) -> int:
        return sum(n for op, n in self.requests.items() if op.startswith("dynamodb."))

    def per(self, n: int) -> str:
        return (f"{self.dynamodb_requests / n:.2f} requests, {self.write / n:.2f} write units,"
                f" {self.read / n:.2f} read units")

    def units_of(self, tables: set[str], kind: str) -> float:
        return sum(u for (table, k), u in self.tables.items() if k == kind and table in tables)

    def split(self, n: int) -> str:
        """Write units per delivery: the event queues' own, and the rest (read state)."""
        queue = self.units_of(QUEUE_TABLES, "write")
        return (f"of which event queues {queue / n:.2f} WRU, "
                f"{self.units_of(QUEUE_TABLES, 'read') / n:.2f} RRU; "
                f"other tables (read state, issue 12) {(self.write - queue) / n:.2f} WRU")


def measure(counter: RequestCounter, action: Any) -> Cost:
    units_before, tables_before = counter.units.copy(), counter.by_table.copy()
    with counter.measure() as delta:
        started = time.perf_counter()
        action()
        seconds = time.perf_counter() - started
    units = counter.units - units_before
    return Cost({f"{svc}.{op}": n for (svc, op), n in delta.items()}, units["write"],
                units["read"], seconds, dict(counter.by_table - tables_before))


class Channel:
    """A channel of the sender and `subscribers - 1` synthetic subscribers, each of those
    with a (connected) queue."""

    def __init__(self, http: Any, owner: dict[str, str], realm_id: int, name: str,
                 subscribers: int, first_user_id: int, connect: bool) -> None:
        from chalicelib.delivery.connections import attach
        from chalicelib.delivery.queues import create_queue
        from chalicelib.models.channels import Stream, Subscription, stream_key, user_key

        self.http, self.owner, self.realm_id, self.name = http, owner, realm_id, name
        response = http.post("/api/v1/users/me/subscriptions", headers=owner,
                             body=f'subscriptions=[{{"name":"{name}"}}]'.encode())
        assert response.status_code == 200, response.body
        self.stream_id = next(s["stream_id"] for s in http.get(
            "/api/v1/users/me/subscriptions", headers=owner).json_body["subscriptions"]
            if s["name"] == name)
        user_ids = range(first_user_id, first_user_id + subscribers - 1)
        with Subscription.batch_write() as batch:
            for user_id in user_ids:
                batch.save(Subscription(user_key(realm_id, user_id), self.stream_id,
                                        stream_key=stream_key(realm_id, self.stream_id),
                                        realm_id=realm_id, user_id=user_id,
                                        date_subscribed=0))
        # As subscribing through the API counts them (the fan-out plans by the count).
        Stream(realm_id, self.stream_id).update(
            actions=[Stream.subscriber_count.add(len(user_ids))])
        self.queues = [create_queue(realm_id, u, OPTIONS, 400) for u in user_ids]
        if connect:
            for n, queue in enumerate(self.queues):
                attach(queue, f"bench-{name}-{n}=", -1)
        self.queue_ids = [q.queue_id for q in self.queues]

    def send(self, count: int) -> None:
        for n in range(count):
            response = self.http.post("/api/v1/messages", headers=self.owner, body=(
                f"type=stream&to={self.name}&topic=t&content=message {n}").encode())
            assert response.status_code == 200, response.body

    def sample_events(self, count: int) -> list[dict[str, Any]]:
        """The last `count` message events as one queue received them (for the replay)."""
        from chalicelib.realtime.reader import read_events

        events = [e for e in read_events(self.queue_ids[0], -1) if e["type"] == "message"]
        return [{k: v for k, v in e.items() if k != "id"} for e in events[-count:]]


def per_event_figures(counter: RequestCounter, channel: Channel, drain: Any) -> None:
    queues = len(channel.queue_ids)
    print(f"1. DynamoDB per event per queue ({queues} connected queues on one channel,"
          " events under 1 KB in the queues)")
    create_legacy_queues(channel.queue_ids)
    for batch in (1, 50):
        channel.send(batch)
        after = measure(counter, drain)
        events = channel.sample_events(batch)
        before = measure(counter, lambda ev=events: legacy_fanout(
            channel.realm_id, channel.stream_id, channel.queue_ids, ev))
        prune = measure(counter, lambda n=batch: legacy_prune(channel.queue_ids, n))
        deliveries = legacy = batch * queues
        print(f"   batch of {batch:>2}: after  {after.per(deliveries)}")
        print(f"                     ({after.split(deliveries)})")
        print(f"              before {before.per(legacy)}"
              f" + pruning {prune.write / legacy:.2f} write units")


def fanout_figures(counter: RequestCounter, channels: list[Channel], drain: Any
                   ) -> dict[int, dict[str, Cost]]:
    """One message to each channel; returns {subscribers: {after, before}}."""
    results: dict[int, dict[str, Cost]] = {}
    for channel in channels:
        create_legacy_queues(channel.queue_ids)
        channel.send(1)
        after = measure(counter, drain)
        events = channel.sample_events(1)
        before = measure(counter, lambda ch=channel, ev=events: legacy_fanout(
            ch.realm_id, ch.stream_id, ch.queue_ids, ev))
        results[len(channel.queue_ids)] = {"after": after, "before": before}
    big = channels[-1]
    n = len(big.queue_ids)
    cost = results[n]["after"]
    raw_put, raw_batch = raw_writes(counter, big.queue_ids)
    assert raw_put is not None
    print(f"\n2. Fan-out of one message to {n:,} connected queues, against raw writes of the"
          " same items")
    print(f"   fan-out         {cost.dynamodb_requests:>6,} DynamoDB requests "
          f"({_ops(cost)}), {cost.write:,.0f} WRU, {cost.read:,.0f} RRU "
          f"({cost.split(1)}), "
          f"{cost.requests.get('apigatewaymanagementapi.PostToConnection', 0):,} pushes, "
          f"{cost.seconds * 1000:,.0f} ms")
    for label, raw in (("raw PutItem", raw_put), ("raw BatchWrite", raw_batch)):
        print(f"   {label:<15} {raw.dynamodb_requests:>6,} DynamoDB requests, "
              f"{raw.write:,.0f} WRU, {raw.seconds * 1000:,.0f} ms "
              f"(fan-out/raw: {cost.seconds / raw.seconds:.1f}x time, "
              f"{cost.write / raw.write:.2f}x WRU)")
    before = results[n]["before"]
    print(f"   before: {before.dynamodb_requests:,} requests ({_ops(before)}), "
          f"{before.write:,.0f} WRU, {before.read:,.0f} RRU, {before.seconds * 1000:,.0f} ms")
    return results


def _ops(cost: Cost) -> str:
    return ", ".join(f"{op.split('.', 1)[1]} {n}" for op, n in sorted(cost.requests.items())
                     if op.startswith("dynamodb."))


def raw_writes(counter: RequestCounter, queue_ids: list[str], one_by_one: bool = True
               ) -> tuple[Cost | None, Cost]:
    """The chunk items the fan-out just wrote, written again under other keys: one
    PutItem each (unless one_by_one is False), then in BatchWriteItems of 25."""
    from chalicelib.models.events import QueueEvent

    client = boto3.client("dynamodb", region_name="us-east-1")
    table = QueueEvent.Meta.table_name
    items = []
    for queue_id in queue_ids:
        [item] = client.query(TableName=table, KeyConditionExpression="queue_id = :q",
                              ExpressionAttributeValues={":q": {"S": queue_id}},
                              ScanIndexForward=False, Limit=1)["Items"]
        items.append(item)

    def put_each(suffix: str) -> None:
        for item in items:
            client.put_item(TableName=table, Item={**item, "queue_id": {
                "S": item["queue_id"]["S"] + suffix}})

    def batch_write() -> None:
        requests = [{"PutRequest": {"Item": {**i, "queue_id": {"S": i["queue_id"]["S"] + "~b"}}}}
                    for i in items]
        for start in range(0, len(requests), 25):
            client.batch_write_item(RequestItems={table: requests[start:start + 25]})

    each = measure(counter, lambda: put_each("~p")) if one_by_one else None
    return each, measure(counter, batch_write)


def chunk_sizes(queue_ids: list[str]) -> str:
    from chalicelib.models.events import QueueEvent

    chunks = [c for q in queue_ids[:5]
              for c in QueueEvent.query(q, scan_index_forward=False, limit=1)]
    per_event = sum(len(json.dumps(c.events)) for c in chunks) / sum(len(c.events)
                                                                       for c in chunks)
    references = sum("_payload" in e for c in chunks for e in c.events)
    return (f"{per_event:.0f} bytes per event in the chunks, {references} of "
            f"{sum(len(c.events) for c in chunks)} events stored as payload references")
