"""Bulk topic moves: DynamoDB write requests and wall time of `change_all`, next to raw
TransactWriteItems of the same items in the same run; requests of a content edit.

Run: .venv/bin/python -m bench.message_moves [sizes...]   (part of `make bench`)
"""
from __future__ import annotations

import sys
import time

from bench.common import RequestCounter, moto_backend

WRITE_OPERATIONS = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
                    "TransactWriteItems"}


def main(sizes: list[int]) -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        import boto3

        from chalicelib.actions.message_edit import EditRequest, do_update_message
        from chalicelib.actions.realms import do_create_realm
        from chalicelib.actions.subscriptions import check_subscribe
        from chalicelib.actions.users import NewUser
        from chalicelib.http.auth import Principal
        from chalicelib.models.messages import Message
        from tests.functional.edit_helpers import bulk_messages

        realm, owner_id, _ = do_create_realm("Bench", "bench", NewUser(
            email="o@bench.example.com", full_name="Owner", role=100))
        owner = Principal(realm.realm_id, owner_id, "o@bench.example.com", 100, False)
        check_subscribe(owner, [{"name": "general"}], None, False, None, False)
        from chalicelib.actions.streams import stream_id_by_name

        stream_id = stream_id_by_name(realm.realm_id, "general")
        client = boto3.client("dynamodb", region_name="us-east-1")
        print(f"{'messages':>9} {'writes':>7} {'other':>6} {'seconds':>8}   "
              f"{'raw writes':>10} {'raw seconds':>11}   ratio (time)")
        for size in sizes:
            ids = bulk_messages(realm.realm_id, owner_id, stream_id, f"t{size}", size)
            with counter.measure() as delta:
                started = time.perf_counter()
                do_update_message(owner, EditRequest(ids[0], topic=f"moved{size}",
                                                     propagate_mode="change_all"))
                elapsed = time.perf_counter() - started
            writes = sum(n for (svc, op), n in delta.items() if op in WRITE_OPERATIONS)
            other = sum(n for (svc, op), n in delta.items() if op not in WRITE_OPERATIONS)
            # The same items written as bare transactions: set the topic on each message.
            table = Message.Meta.table_name
            started = time.perf_counter()
            raw = 0
            for start in range(0, size, 100):
                client.transact_write_items(TransactItems=[{"Update": {
                    "TableName": table,
                    "Key": {"realm_id": {"N": str(realm.realm_id)}, "message_id": {"N": str(i)}},
                    "UpdateExpression": "SET topic = :t",
                    "ExpressionAttributeValues": {":t": {"S": f"raw{size}"}}}}
                    for i in ids[start:start + 100]])
                raw += 1
            raw_elapsed = time.perf_counter() - started
            print(f"{size:>9} {writes:>7} {other:>6} {elapsed:>8.2f}   {raw:>10} "
                  f"{raw_elapsed:>11.2f}   {elapsed / raw_elapsed:.2f}x")
        message_id = bulk_messages(realm.realm_id, owner_id, stream_id, "edit", 1)[0]
        with counter.measure() as delta:
            do_update_message(owner, EditRequest(message_id, content="edited **content**"))
        calls = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
        print(f"\nsingle-message content edit: {sum(calls.values())} DynamoDB requests {calls}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000])
