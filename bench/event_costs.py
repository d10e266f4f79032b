"""Idle-client and delivery costs: measured on in-process moto, priced at list prices.

Lambda time is priced where a client holds it (a waiting long-poll, the keepalive's
share of a push connection); the fan-out's own Lambda time is left out on both sides
(its duration on moto says nothing about AWS).
"""
from __future__ import annotations

import os
from typing import Any

from bench.event_fanout import QUEUE_TABLES, Cost, measure
from bench.legacy_events import (
    create_legacy_queues,
    dynamodb_client,
    legacy_append,
    legacy_idle_wait,
    legacy_prune,
    legacy_queue,
)
from bench.prices import (
    API_GATEWAY_REST_PER_REQUEST,
    DYNAMODB_PER_READ_UNIT,
    DYNAMODB_PER_WRITE_UNIT,
    LAMBDA_PER_REQUEST,
    SQS_PER_REQUEST,
    WEBSOCKET_PER_CONNECTION_MINUTE,
    WEBSOCKET_PER_MESSAGE,
    Bill,
)

WAIT_SECONDS = 20.0            # LONGPOLL_WAIT_SECONDS on AWS (infra/template.json)
POLLS_PER_HOUR = 3600 / WAIT_SECONDS
LEGACY_MEMORY_MB = 512         # the API function, which served long-polls before
LONGPOLL_MEMORY_MB = 128       # LongPollHandler (infra/template.json)
KEEPALIVE_MEMORY_MB = 256      # EventsKeepalive
HEARTBEATS_PER_HOUR = 3600 / 300


def _register(http: Any, headers: dict[str, str]) -> str:
    return http.post("/api/v1/register", headers=headers,
                     body=b'event_types=["message"]').json_body["queue_id"]


def _get(http: Any, headers: dict[str, str], queue_id: str, last: int, block: bool
         ) -> list[dict[str, Any]]:
    return http.get(f"/api/v1/events?queue_id={queue_id}&last_event_id={last}"
                    f"&dont_block={'false' if block else 'true'}", headers=headers
                    ).json_body["events"]


def idle_longpoll(counter: Any, http: Any, headers: dict[str, str]) -> dict[str, Any]:
    """One idle 20 s GET /events (after), and the old loop's reads and writes (before)."""
    queue_id = _register(http, headers)
    os.environ["LONGPOLL_WAIT_SECONDS"] = "1.5"   # the first wait creates the wake queue
    last = _get(http, headers, queue_id, -1, True)[-1]["id"]
    os.environ["LONGPOLL_WAIT_SECONDS"] = str(WAIT_SECONDS)
    after = measure(counter, lambda: _get(http, headers, queue_id, last, True))
    create_legacy_queues([queue_id])
    legacy_wait = measure(counter, lambda: legacy_idle_wait(queue_id, 3.0))
    legacy_writes = measure(counter, lambda: (
        legacy_prune([queue_id], 1), legacy_append([queue_id], [{"type": "heartbeat"}])))
    reads = {op: n for op, n in after.requests.items() if op.split(".")[1] in (
        "GetItem", "Query", "BatchGetItem")}
    print(f"\n3. Idle long-poll: one {after.seconds:.1f} s GET /events that gets a heartbeat")
    print(f"   after:  DynamoDB reads {reads} = "
          f"{sum(reads.values()) / after.seconds * 60:.1f} per minute "
          f"({after.read:.0f} RRU, {after.write:.0f} WRU per poll); SQS "
          f"{ {op: n for op, n in after.requests.items() if op.startswith('sqs')} }")
    get_items = legacy_wait.requests.get("dynamodb.GetItem", 0)
    print(f"   before: {get_items / legacy_wait.seconds * 60:,.0f} GetItem per minute "
          f"(one per {legacy_wait.seconds / get_items * 1000:.0f} ms)")
    return {"after": after, "legacy_wait": legacy_wait, "legacy_writes": legacy_writes}


def return_poll(counter: Any, http: Any, headers: dict[str, str], drain: Any
                ) -> dict[str, Cost]:
    """What a long-poll client's GET /events returning one new message costs."""
    from chalicelib.models.events import EventQueue, QueueEvent

    queue_id = _register(http, headers)
    response = http.post("/api/v1/messages", headers=headers,
                         body=b"type=stream&to=c10&topic=t&content=returned")
    assert response.status_code == 200, response.body
    drain()
    after = measure(counter, lambda: _get(http, headers, queue_id, -1, False))
    create_legacy_queues([queue_id])
    legacy_append([queue_id], [{"type": "message"}])
    client = dynamodb_client()

    def legacy_read() -> None:
        client.get_item(TableName=EventQueue.Meta.table_name, ConsistentRead=True,
                        Key={"queue_id": {"S": legacy_queue(queue_id)}})
        client.query(TableName=QueueEvent.Meta.table_name, ConsistentRead=True,
                     KeyConditionExpression="queue_id = :q AND sk > :s",
                     ExpressionAttributeValues={":q": {"S": legacy_queue(queue_id)},
                                                ":s": {"S": "e#"}})
        legacy_prune([queue_id], 1)

    return {"after": after, "before": measure(counter, legacy_read)}


def idle_push(counter: Any) -> dict[str, Any]:
    """One run of the keepalive over every connection (heartbeat, push, queue life)."""
    from chalicelib.models.events import WsConnection
    from chalicelib.realtime.keepalive import run_keepalive

    connections = sum(1 for _ in WsConnection.scan())
    cost = measure(counter, run_keepalive)
    pushes = cost.requests.get("apigatewaymanagementapi.PostToConnection", 0)
    print(f"\n4. Idle push connection: one keepalive run over {connections:,} connections")
    print(f"   per connection: {cost.write / connections:.2f} WRU, "
          f"{cost.read / connections:.2f} RRU, {pushes / connections:.2f} messages, "
          f"{cost.seconds / connections * 1000:.1f} ms of the function (on moto)")
    return {"cost": cost, "connections": connections, "pushes": pushes}


def _dynamodb(bill: Bill, write: float, read: float, what: str = "DynamoDB") -> None:
    bill.add(f"{what} writes", write, DYNAMODB_PER_WRITE_UNIT, "WRU")
    bill.add(f"{what} reads", read, DYNAMODB_PER_READ_UNIT, "RRU")


def cost_tables(longpoll: dict[str, Any], push: dict[str, Any],
                poll_return: dict[str, Cost], deliveries: dict[int, dict[str, Cost]]
                ) -> None:
    print("\n5. Costs at list prices (us-east-1; bench/prices.py)")
    print("\n   One idle connected client for an hour")
    legacy_wait, legacy_writes = longpoll["legacy_wait"], longpoll["legacy_writes"]
    for arch in ("x86_64", "arm64"):
        bill = Bill()
        bill.add("API Gateway REST requests", POLLS_PER_HOUR, API_GATEWAY_REST_PER_REQUEST, "req")
        bill.add("Lambda requests", POLLS_PER_HOUR, LAMBDA_PER_REQUEST, "req")
        bill.lambda_time("Lambda held while waiting", 3600, LEGACY_MEMORY_MB, arch)
        _dynamodb(bill, legacy_writes.write * POLLS_PER_HOUR,
                  legacy_wait.read / legacy_wait.seconds * 3600)
        print(f"\n   BEFORE, long-poll ({WAIT_SECONDS:.0f} s waits, API function "
              f"{LEGACY_MEMORY_MB} MB {arch}, queue item read every 50 ms):")
        bill.print()
    after = longpoll["after"]
    per_poll = WAIT_SECONDS / after.seconds   # scales the measured poll to a 20 s one
    sqs = sum(n for op, n in after.requests.items() if op.startswith("sqs."))
    bill = Bill()
    bill.add("API Gateway REST requests", POLLS_PER_HOUR, API_GATEWAY_REST_PER_REQUEST, "req")
    bill.add("Lambda requests", POLLS_PER_HOUR, LAMBDA_PER_REQUEST, "req")
    bill.lambda_time("Lambda held while waiting", 3600, LONGPOLL_MEMORY_MB, "arm64")
    _dynamodb(bill, after.write * POLLS_PER_HOUR, after.read * per_poll * POLLS_PER_HOUR)
    bill.add("SQS wake-queue requests", sqs * per_poll * POLLS_PER_HOUR, SQS_PER_REQUEST, "req")
    print(f"\n   AFTER, long-poll (LongPollHandler {LONGPOLL_MEMORY_MB} MB arm64, woken by "
          "SQS, a check every 5 s; target <= $0.008):")
    bill.print()
    cost, connections = push["cost"], push["connections"]
    bill = Bill()
    bill.add("WebSocket connection-minutes", 60, WEBSOCKET_PER_CONNECTION_MINUTE, "min")
    bill.add("WebSocket heartbeat messages", HEARTBEATS_PER_HOUR * push["pushes"] / connections,
             WEBSOCKET_PER_MESSAGE, "msg")
    _dynamodb(bill, cost.write / connections * HEARTBEATS_PER_HOUR,
              cost.read / connections * HEARTBEATS_PER_HOUR)
    bill.add("Lambda requests (keepalive)", HEARTBEATS_PER_HOUR / connections,
             LAMBDA_PER_REQUEST, "req")
    bill.lambda_time("Lambda keepalive share", cost.seconds / connections * HEARTBEATS_PER_HOUR,
                     KEEPALIVE_MEMORY_MB, "arm64")
    print("\n   AFTER, push channel (heartbeat every 5 minutes; keepalive time as measured "
          "on moto, an upper bound; target <= $0.0001):")
    bill.print()
    _delivery_table(poll_return, deliveries)


def _delivery_table(poll_return: dict[str, Cost], deliveries: dict[int, dict[str, Cost]]
                    ) -> None:
    print("\n   Delivering one channel message to N connected subscribers "
          "(fan-out, then each client's delivery)")
    returned_before, returned_after = poll_return["before"], poll_return["after"]
    rows = []
    for subscribers, measured in sorted(deliveries.items()):
        before, after = measured["before"], measured["after"]
        pushes = after.requests.get("apigatewaymanagementapi.PostToConnection", 0)
        old = Bill()
        _dynamodb(old, before.write, before.read, "fan-out DynamoDB")
        old.add("poll returns: API Gateway", subscribers, API_GATEWAY_REST_PER_REQUEST, "req")
        old.add("poll returns: Lambda", subscribers, LAMBDA_PER_REQUEST, "req")
        _dynamodb(old, returned_before.write * subscribers, returned_before.read * subscribers,
                  "poll returns:")
        queue_w, queue_r = after.units_of(QUEUE_TABLES, "write"), after.units_of(
            QUEUE_TABLES, "read")
        state = Bill()   # issue 12's per-recipient read state, which "before" did not have
        _dynamodb(state, after.write - queue_w, after.read - queue_r, "read state")
        new_push = Bill()
        _dynamodb(new_push, queue_w, queue_r, "fan-out DynamoDB")
        new_push.add("WebSocket messages", pushes, WEBSOCKET_PER_MESSAGE, "msg")
        new_poll = Bill()
        _dynamodb(new_poll, queue_w, queue_r, "fan-out DynamoDB")
        new_poll.add("SQS wake-ups", subscribers, SQS_PER_REQUEST, "req")
        new_poll.add("poll returns: API Gateway", subscribers, API_GATEWAY_REST_PER_REQUEST, "req")
        new_poll.add("poll returns: Lambda", subscribers, LAMBDA_PER_REQUEST, "req")
        _dynamodb(new_poll, returned_after.write * subscribers,
                  returned_after.read * subscribers, "poll returns:")
        for label, bill in (("BEFORE, long-poll", old), ("AFTER, push channel", new_push),
                            ("AFTER, long-poll", new_poll),
                            (("AFTER, read state written by the same fan-out (issue 12; "
                             "not part of the event pipeline, none before)"), state)):
            print(f"\n   {subscribers:,} subscribers, {label}:")
            bill.print()
        rows.append((subscribers, old.total, new_push.total, new_poll.total, state.total))
    print("\n   Summary: one channel message to N connected subscribers (event pipeline;"
          " read state apart)")
    print(f"   {'N':>6} {'before':>12} {'after, push':>12} {'after, long-poll':>17} "
          f"{'read state':>12}")
    for subscribers, old_total, push_total, poll_total, state_total in rows:
        print(f"   {subscribers:>6,} {f'${old_total:.6f}':>12} {f'${push_total:.6f}':>12} "
              f"{f'${poll_total:.6f}':>17} {f'${state_total:.6f}':>12}"
              f"  (push: {old_total / push_total:.1f}x cheaper)")
