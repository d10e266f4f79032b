"""Read state: what sending, marking read and registering cost in DynamoDB requests and units.

Run: .venv/bin/python -m bench.read_state   (or `make bench`)

Counts come from botocore (every request the code makes); write units are DynamoDB's
on-demand units for these small items (BatchWriteItem 1 per item, transactions 2), and
the unread markers' topic index adds one more write unit per channel marker (GSI writes
are billed like table writes), shown separately. Times are in-process moto on this
machine, for comparison between rows, not AWS latency.
"""
from __future__ import annotations

import base64
import json
import time
from collections import Counter
from typing import Any
from urllib.parse import urlencode

from bench.common import RequestCounter, bench_realm, moto_backend


class Api:
    def __init__(self, client: Any, email: str, key: str) -> None:
        self.client = client
        self.auth = {"Authorization": "Basic " + base64.b64encode(
            f"{email}:{key}".encode()).decode()}

    def call(self, method: str, path: str, params: dict[str, Any] | None = None) -> Any:
        body = urlencode({k: v if isinstance(v, str) else json.dumps(v)
                          for k, v in (params or {}).items()})
        if method == "GET":
            response = self.client.http.get(f"/api/v1{path}?{body}", headers=self.auth)
        else:
            response = getattr(self.client.http, method.lower())(
                f"/api/v1{path}", body=body.encode(), headers={
                    **self.auth, "Content-Type": "application/x-www-form-urlencoded"})
        assert response.status_code == 200, (path, response.body[:300])
        return json.loads(response.body)


def dynamodb(delta: Counter) -> tuple[int, dict[str, int]]:
    ops = {op: n for (service, op), n in delta.items() if service == "dynamodb"}
    return sum(ops.values()), ops


def measured(counter: RequestCounter, action: Any) -> tuple[int, dict[str, int], float, float]:
    units_before = counter.units.copy()
    started = time.perf_counter()
    with counter.measure() as delta:
        action()
    elapsed = (time.perf_counter() - started) * 1000
    requests, ops = dynamodb(delta)
    units = counter.units - units_before
    return requests, ops, units.get("write", 0.0), elapsed


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
        from chalicelib.models.messages import topic_key
        from infra.local.stream_drain import OutboxDrain

        realm, owner_id, key = bench_realm()
        realm_id = realm.realm_id
        print("creating 1,000 users ...", flush=True)
        created = [do_create_user(realm_id, NewUser(email=f"u{n}@bench.example.com",
                                                    full_name=f"User {n}"))
                   for n in range(1000)]
        users = [user for user, _ in created]
        drain = OutboxDrain()
        with Client(app) as client:
            owner = Api(client, "o@bench.example.com", key)
            for size in (10, 100, 1000):
                owner.call("POST", "/users/me/subscriptions",
                           {"subscriptions": [{"name": f"c{size}"}]})
            drain()
            streams = {s.name: s for s in Stream.query(realm_id)}
            for size in (10, 100, 1000):
                do_add_subscribers(realm_id, streams[f"c{size}"], users[:size - 1])
            drain()

            print("\nPOST /messages to a channel (one mention), request path vs fan-out")
            print(f"{'subscribers':>11} | {'request: reqs':>13} {'WCU':>5} {'ms':>6} | "
                  f"{'fan-out: reqs':>13} {'WCU':>6} {'+GSI':>5} {'ms':>7}  fan-out operations")
            for size in (10, 100, 1000):
                def send(size: int = size) -> None:
                    owner.call("POST", "/messages", {
                        "type": "stream", "to": f"c{size}", "topic": "bench",
                        "content": "hello @**User 1**"})
                owner.call("POST", "/messages", {"type": "stream", "to": f"c{size}",
                                                 "topic": "warm", "content": "warm"})
                drain()
                request = measured(counter, send)
                fanout = measured(counter, drain)
                gsi = size - 1   # one channel marker per recipient but the sender
                print(f"{size:>11} | {request[0]:>13} {request[2]:>5.0f} {request[3]:>6.1f} | "
                      f"{fanout[0]:>13} {fanout[2]:>6.0f} {gsi:>5} {fanout[3]:>7.1f}  "
                      f"{fanout[1]}")

            member = Api(client, "u1@bench.example.com", created[1][1])
            ids = [owner.call("POST", "/messages", {"type": "stream", "to": "c10",
                                                    "topic": "flags", "content": f"m{n}"})["id"]
                   for n in range(100)]
            drain()
            print("\nPOST /messages/flags (add read), request path")
            for count in (1, 100):
                chosen = ids[:count] if count == 1 else ids[1:101]
                result = measured(counter, lambda c=chosen: member.call(
                    "POST", "/messages/flags", {"messages": c, "op": "add", "flag": "read"}))
                print(f"  {count:>4} messages: {result[0]} requests {result[1]}, "
                      f"{result[2]:.0f} WCU, {result[3]:.1f} ms")

            # A topic of 1,000 unread messages for the member (markers written directly:
            # the setup is not what is measured).
            stream = streams["c10"]
            topic_ids = [ids[-1] + 1 + n for n in range(1000)]
            key_of_member = user_key(realm_id, users[1].user_id)
            with UnreadMessage.batch_write() as batch:
                for message_id in topic_ids:
                    batch.save(UnreadMessage(
                        key_of_member, message_id, user_id=users[1].user_id,
                        sender_id=owner_id, stream_id=stream.stream_id, topic="big",
                        topic_key=topic_key(realm_id, stream.stream_id, "big")))
            _topic_exists(realm_id, stream.stream_id, "big", topic_ids[-1])
            result = measured(counter, lambda: member.call(
                "POST", "/mark_topic_as_read", {"stream_id": stream.stream_id,
                                                "topic_name": "big"}))
            print(f"\nPOST /mark_topic_as_read, topic of 1,000 unread messages: {result[0]} "
                  f"requests {result[1]}, {result[2]:.0f} WCU, {result[3]:.0f} ms")

            # 10,000 unread messages: the size of unread_msgs work at registration.
            more = [topic_ids[-1] + 1 + n for n in range(10_000)]
            with UnreadMessage.batch_write() as batch:
                for n, message_id in enumerate(more):
                    batch.save(UnreadMessage(
                        key_of_member, message_id, user_id=users[1].user_id,
                        sender_id=owner_id, stream_id=stream.stream_id, topic=f"t{n % 50}",
                        topic_key=topic_key(realm_id, stream.stream_id, f"t{n % 50}")))
            params = {"fetch_event_types": ["message", "update_message_flags"],
                      "event_types": ["message"]}
            state: dict[str, Any] = {}
            result = measured(counter, lambda: state.update(member.call("POST", "/register",
                                                                        params)))
            size = len(json.dumps(state["unread_msgs"]))
            print(f"\nPOST /register (unread_msgs only), 10,000 unread: {result[0]} requests "
                  f"{result[1]}, {result[3]:.0f} ms, unread_msgs {size / 1024:.0f} KiB, "
                  f"count {state['unread_msgs']['count']}")
            result = measured(counter, lambda: member.call("POST", "/register", {}))
            print(f"POST /register, every fetch type, 10,000 unread: {result[0]} requests "
                  f"{result[1]}, {result[3]:.0f} ms")


def _topic_exists(realm_id: int, stream_id: int, topic: str, max_id: int) -> None:
    from chalicelib.actions.channels.topics import note_topic_message

    note_topic_message(realm_id, stream_id, topic, max_id)


if __name__ == "__main__":
    main()
