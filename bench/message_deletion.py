"""Message deletion: DynamoDB requests of DELETE /messages/{id} and of fanning out its
delete_message event to the live queues of the channel's readers; and of
POST /streams/{id}/delete_topic for a topic of 1,000 messages, next to the floor (the
same deletes as bare TransactWriteItems of 100).

Run: .venv/bin/python -m bench.message_deletion [topic size]   (part of `make bench`)
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable

from bench.common import (
    RequestCounter,
    api_caller,
    bench_realm,
    form_headers,
    moto_backend,
)

READERS = 5   # users with a live queue who read the channel


def main(topic_size: int) -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        import boto3
        from chalice.test import Client

        from app import app
        from chalicelib.actions.users.users import NewUser, do_create_user
        from chalicelib.models.messages import Message
        from infra.local.stream_drain import OutboxDrain
        from tests.functional.edit_helpers import bulk_messages

        realm, owner_id, owner_key = bench_realm()
        readers = [do_create_user(realm.realm_id, NewUser(
            email=f"r{n}@bench.example.com", full_name=f"Reader {n}")) for n in range(READERS)]


        owner = form_headers("o@bench.example.com", owner_key)
        drain = OutboxDrain()
        with Client(app) as client:
            call = api_caller(client)

            call("POST", "/users/me/subscriptions", owner, subscriptions=[{"name": "general"}],
                 principals=[u.user_id for u, _ in readers])
            stream_id = call("GET", "/get_stream_id", owner, stream="general")["stream_id"]
            for user, key in readers:
                call("POST", "/register", form_headers(user.email, key),
                     event_types=["delete_message"],
                     client_capabilities={"bulk_message_deletion": True})
            ids = [call("POST", "/messages", owner, type="stream", to="general", topic="t",
                        content=f"message {n}")["id"] for n in range(3)]
            drain()

            print(f"{'call':<40} {'DynamoDB requests':<18} {'write/read units':<17} "
                  "operations")

            def measured(name: str, action: Callable[[], object]) -> None:
                units_before = counter.units.copy()
                with counter.measure() as delta:
                    action()
                units = counter.units - units_before
                ops = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                print(f"{name:<40} {sum(ops.values()):<18} "
                      f"{units['write']:g}/{units['read']:g}{'':<10} {ops}")

            measured("DELETE /messages/{id} (request)",
                     lambda: call("DELETE", f"/messages/{ids[1]}", owner))
            measured(f"  its events to {READERS} readers' queues", drain)
            measured("DELETE /messages/{id} (first message)",
                     lambda: call("DELETE", f"/messages/{ids[0]}", owner))
            measured(f"  its events to {READERS} readers' queues", drain)
            print("floor: 1 DeleteItem; with the event in the same transaction: 1 "
                  "TransactWriteItems of 2 items")

            big = bulk_messages(realm.realm_id, owner_id, stream_id, "big", topic_size)
            drain()
            started = time.perf_counter()
            with counter.measure() as delta:
                answers = []
                while not answers or not answers[-1]:
                    answers.append(call("POST", f"/streams/{stream_id}/delete_topic", owner,
                                        topic_name="big")["complete"])
            seconds = time.perf_counter() - started
            ops = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
            assert not list(Message.batch_get([(realm.realm_id, i) for i in big]))
            print(f"\nPOST /streams/{{id}}/delete_topic, {topic_size} messages: "
                  f"{sum(ops.values())} DynamoDB requests "
                  f"({sum(ops.values()) / topic_size:.3f} per message), "
                  f"{ops.get('TransactWriteItems', 0)} transactions, {len(answers)} request(s), "
                  f"{seconds:.1f} s\n  {ops}")
            with counter.measure() as delta:
                drain()
            fanout = sum(n for (svc, _), n in delta.items() if svc == "dynamodb")
            print(f"  its events to {READERS} readers' queues: {fanout} DynamoDB requests")

            floor_ids = bulk_messages(realm.realm_id, owner_id, stream_id, "floor", topic_size)
            dynamodb = boto3.client("dynamodb")
            started = time.perf_counter()
            with counter.measure() as delta:
                for start in range(0, len(floor_ids), 100):
                    dynamodb.transact_write_items(TransactItems=[{"Delete": {
                        "TableName": Message.Meta.table_name,
                        "Key": {"realm_id": {"N": str(realm.realm_id)},
                                "message_id": {"N": str(i)}}}}
                        for i in floor_ids[start:start + 100]])
            floor = sum(n for (svc, _), n in delta.items() if svc == "dynamodb")
            print(f"floor (bare deletes, 100 per transaction): {floor} requests, "
                  f"{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
