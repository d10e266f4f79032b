"""The previous event pipeline's DynamoDB requests, replayed for the "before" figures.

Before issue 14 the fan-out found the queues of a public channel (or of more than 20
users) with a Query of every queue of the realm, then appended each queue's events in a
TransactWriteItems: a compare-and-set on the queue item plus, per event, the event and a
dedup marker. A client's next poll deleted what it acknowledged; a waiting GET /events
read its queue item every 50 ms. These functions issue the same requests on the same
tables (legacy items use keys `<queue id>~legacy`, outside every index), so one run
prints before and after.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3

import bench.common  # noqa: F401 - the bench environment, before the models read it
from chalicelib.models.channels import Stream, Subscription, stream_key
from chalicelib.models.events import EventQueue, QueueEvent

EVENTS_PER_TRANSACTION = 49
POLL_INTERVAL = 0.05


def dynamodb_client() -> Any:
    return boto3.client("dynamodb", region_name="us-east-1")


def legacy_queue(queue_id: str) -> str:
    return f"{queue_id}~legacy"


def create_legacy_queues(queue_ids: list[str]) -> None:
    client = dynamodb_client()
    for queue_id in queue_ids:
        client.put_item(TableName=EventQueue.Meta.table_name, Item={
            "queue_id": {"S": legacy_queue(queue_id)}, "last_event_id": {"N": "-1"}})


def legacy_fanout(realm_id: int, stream_id: int, queue_ids: list[str],
                  events: list[dict[str, Any]]) -> None:
    """The old fan-out of `events` (already in each queue's form) to these queues."""
    # Audience: the channel's subscribers, the channel, and (public channel) every queue
    # of the realm through the by_user index.
    list(Subscription.by_stream.query(stream_key(realm_id, stream_id)))
    Stream.get(realm_id, stream_id)
    list(EventQueue.by_user.query(realm_id))
    legacy_append(queue_ids, events)


def legacy_append(queue_ids: list[str], events: list[dict[str, Any]]) -> None:
    """The old append: per queue, transactions of a compare-and-set plus event + marker."""
    client = dynamodb_client()

    def append(queue_id: str) -> None:
        key = legacy_queue(queue_id)
        last = int(client.get_item(TableName=EventQueue.Meta.table_name, Key={
            "queue_id": {"S": key}}, ConsistentRead=True)["Item"]["last_event_id"]["N"])
        for start in range(0, len(events), EVENTS_PER_TRANSACTION):
            batch = events[start:start + EVENTS_PER_TRANSACTION]
            actions: list[dict[str, Any]] = [{"Update": {
                "TableName": EventQueue.Meta.table_name, "Key": {"queue_id": {"S": key}},
                "UpdateExpression": "SET last_event_id = :new",
                "ConditionExpression": "last_event_id = :old",
                "ExpressionAttributeValues": {":new": {"N": str(last + len(batch))},
                                              ":old": {"N": str(last)}}}}]
            for offset, event in enumerate(batch):
                event_id = last + 1 + offset
                for sk, body in ((f"e#{event_id:020d}", {**event, "id": event_id}),
                                 (f"d#{event.get('_dedup', event_id)}:{event_id}", None)):
                    item = {"queue_id": {"S": key}, "sk": {"S": sk},
                            "expires_at": {"N": str(int(time.time()) + 86400)}}
                    if body is not None:
                        item["event"] = {"S": json.dumps(body)}
                    actions.append({"Put": {"TableName": QueueEvent.Meta.table_name,
                                            "Item": item}})
            client.transact_write_items(TransactItems=actions)
            last += len(batch)

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(append, queue_ids))


def legacy_prune(queue_ids: list[str], count: int) -> None:
    """The old acknowledgement: delete each acknowledged event, update the queue."""
    client = dynamodb_client()
    for queue_id in queue_ids:
        key = legacy_queue(queue_id)
        deletes = [{"DeleteRequest": {"Key": {"queue_id": {"S": key},
                                              "sk": {"S": f"e#{n:020d}"}}}}
                   for n in range(count)]
        for start in range(0, len(deletes), 25):
            client.batch_write_item(RequestItems={
                QueueEvent.Meta.table_name: deletes[start:start + 25]})
        client.update_item(TableName=EventQueue.Meta.table_name,
                           Key={"queue_id": {"S": key}},
                           UpdateExpression="SET acked_through = :n",
                           ExpressionAttributeValues={":n": {"N": str(count - 1)}})


def legacy_idle_wait(queue_id: str, seconds: float) -> None:
    """The old waiting GET /events: its queue item read every 50 ms."""
    client = dynamodb_client()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(POLL_INTERVAL)
        client.get_item(TableName=EventQueue.Meta.table_name,
                        Key={"queue_id": {"S": legacy_queue(queue_id)}}, ConsistentRead=True)
