"""Bulk topic moves: DynamoDB write requests and wall time of `change_all`, next to raw
TransactWriteItems of the same items in the same run; requests of a content edit.

The raw floor writes the same message items with the same attribute changes (topic,
topic key, moved timestamp, a history entry, version), 100 per transaction, without
conditions, events or notices: what any correct move must at least do.

Run: .venv/bin/python -m bench.message_moves [sizes...]   (part of `make bench`)
"""
from __future__ import annotations

import base64
import json
import sys
import time

from bench.common import RequestCounter, bench_realm, moto_backend

WRITE_OPERATIONS = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
                    "TransactWriteItems"}


def raw_move(client, table: str, realm_id: int, ids: list[int], topic: str) -> int:
    """The move's message writes as bare transactions; returns how many requests."""
    # The history is a JSON string attribute: one entry, as a first move writes it.
    history = json.dumps([{"user_id": 1, "timestamp": 1, "prev_topic": "old",
                           "topic": topic}])
    requests = 0
    for start in range(0, len(ids), 100):
        client.transact_write_items(TransactItems=[{"Update": {
            "TableName": table,
            "Key": {"realm_id": {"N": str(realm_id)}, "message_id": {"N": str(i)}},
            "UpdateExpression": "SET topic = :t, topic_key = :k, last_moved_timestamp = :n, "
                                "edit_history = :h, version = version + :one",
            "ExpressionAttributeValues": {
                ":t": {"S": topic}, ":k": {"S": f"{realm_id}#raw#{topic}"}, ":n": {"N": "1"},
                ":h": {"S": history}, ":one": {"N": "1"}}}}
            for i in ids[start:start + 100]])
        requests += 1
    return requests


def main(sizes: list[int]) -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        import boto3
        from chalice.test import Client

        from app import app
        from chalicelib.actions.channels.subscriptions import check_subscribe
        from chalicelib.actions.messages.edit import EditRequest, do_update_message
        from chalicelib.actions.users.system_bots import notification_bot
        from chalicelib.core.principal import Principal
        from chalicelib.models.channels import stream_id_by_name
        from chalicelib.models.messages import Message
        from tests.functional.edit_helpers import bulk_messages

        realm, owner_id, key = bench_realm()
        owner = Principal(realm.realm_id, owner_id, "o@bench.example.com", 100, False)
        check_subscribe(owner, [{"name": "general"}], None, False, None, False)
        stream_id = stream_id_by_name(realm.realm_id, "general")
        notification_bot(realm.realm_id)   # created once per organization, not per move
        client = boto3.client("dynamodb", region_name="us-east-1")
        print(f"{'messages':>9} {'write requests':>14} {'other':>6} {'seconds':>8}   "
              f"{'raw writes':>10} {'raw seconds':>11}   ratio (writes, time)")
        for size in sizes:
            ids = bulk_messages(realm.realm_id, owner_id, stream_id, f"t{size}", size)
            with counter.measure() as delta:
                started = time.perf_counter()
                do_update_message(owner, EditRequest(ids[0], topic=f"moved{size}",
                                                     propagate_mode="change_all"))
                elapsed = time.perf_counter() - started
            writes = sum(n for (svc, op), n in delta.items() if op in WRITE_OPERATIONS)
            other = sum(n for (svc, op), n in delta.items() if op not in WRITE_OPERATIONS)
            started = time.perf_counter()
            raw = raw_move(client, Message.Meta.table_name, realm.realm_id, ids, f"raw{size}")
            raw_elapsed = time.perf_counter() - started
            print(f"{size:>9} {writes:>14} {other:>6} {elapsed:>8.2f}   {raw:>10} "
                  f"{raw_elapsed:>11.2f}   {writes / raw:.2f}x, {elapsed / raw_elapsed:.2f}x")
            print(f"{'':>9} move's requests: {dict(sorted((op, n) for (_, op), n in delta.items()))}")
        auth = {"Authorization": "Basic " + base64.b64encode(
            f"o@bench.example.com:{key}".encode()).decode(),
            "Content-Type": "application/x-www-form-urlencoded"}
        with Client(app) as http:
            for label, body in (("content edit", b"content=edited+**content**"),
                                ("one-message topic move",
                                 b"topic=elsewhere&send_notification_to_new_thread=false")):
                message_id = bulk_messages(realm.realm_id, owner_id, stream_id, "edit", 1)[0]
                with counter.measure() as delta:
                    response = http.http.request("PATCH", f"/api/v1/messages/{message_id}",
                                                 headers=auth, body=body)
                assert json.loads(response.body)["result"] == "success", response.body
                calls = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                print(f"\nPATCH /messages/{{id}}, single-message {label}: "
                      f"{sum(calls.values())} DynamoDB requests {calls}", end="")
        print()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000])
