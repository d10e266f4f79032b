"""Read receipts: what GET /messages/{id}/read_receipts costs on a 1,000-member channel.

Run: .venv/bin/python -m bench.read_receipts

Half of the recipients have read the message. Counts come from botocore; read units are
DynamoDB's on-demand units by its size rules (bench/common.py). Times are in-process
moto on this machine, for comparison, not AWS latency.
"""
from __future__ import annotations

import time

from bench.common import RequestCounter, bench_realm, moto_backend
from bench.read_state import Api, dynamodb


def main() -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app
        from chalicelib.actions.channels.add_subscribers import do_add_subscribers
        from chalicelib.actions.users.users import NewUser, do_create_user
        from chalicelib.models.channels import Stream, user_key
        from chalicelib.models.message_flags import UnreadMessage
        from infra.local.stream_drain import OutboxDrain

        realm, _owner_id, key = bench_realm()
        realm_id = realm.realm_id
        print("creating 1,000 users ...", flush=True)
        users = [do_create_user(realm_id, NewUser(email=f"u{n}@bench.example.com",
                                                  full_name=f"User {n}"))[0]
                 for n in range(999)]
        drain = OutboxDrain()
        with Client(app) as client:
            owner = Api(client, "o@bench.example.com", key)
            owner.call("PATCH", "/realm", {"enable_read_receipts": True})
            owner.call("POST", "/users/me/subscriptions", {"subscriptions": [{"name": "big"}]})
            drain()
            stream = next(s for s in Stream.query(realm_id) if s.name == "big")
            do_add_subscribers(realm_id, stream, users)
            drain()
            time.sleep(1.1)   # the message is sent after everyone subscribed
            message_id = owner.call("POST", "/messages", {
                "type": "stream", "to": "big", "topic": "t", "content": "hello"})["id"]
            drain()
            # Half the recipients read it (their markers removed directly: setup).
            with UnreadMessage.batch_write() as batch:
                for user in users[::2]:
                    batch.delete(UnreadMessage(user_key(realm_id, user.user_id), message_id))
            units_before = counter.units.copy()
            started = time.perf_counter()
            with counter.measure() as delta:
                answer = owner.call("GET", f"/messages/{message_id}/read_receipts")
            elapsed = (time.perf_counter() - started) * 1000
            requests, ops = dynamodb(delta)
            units = counter.units - units_before
            print(f"GET /messages/{{id}}/read_receipts, 1,000-member channel, "
                  f"{len(answer['user_ids'])} readers listed: {requests} DynamoDB requests "
                  f"{ops}, {units.get('read', 0):.0f} RCU, {units.get('write', 0):.0f} WCU, "
                  f"{elapsed:.0f} ms (moto)")


if __name__ == "__main__":
    main()
