"""Presence: write units per connected client-hour of pings (one client, and three clients
of one user), and the read cost of GET /realm/presence, of a ping that fetches the
realm's presence, and of the presence state of POST /register, at 100 and 1,000 users.

Read units are computed from the sizes of the items a request reads (DynamoDB's rule:
a Query costs its items' total size in 4 KB units, halved when eventually consistent),
since the request counter knows only how many requests were made.

Run: .venv/bin/python -m bench.presence   (part of `make bench`)
"""
from __future__ import annotations

import math
import time
from decimal import Decimal

from bench.common import RequestCounter, api_caller, form_headers, moto_backend

REALM_SIZES = (100, 1000)


def attribute_size(value: dict) -> int:
    """An attribute value's size by DynamoDB's rules (close enough for small items)."""
    (kind, data), = value.items()
    if kind == "S":
        return len(data.encode())
    if kind == "N":
        digits = len(str(Decimal(data)).replace("-", "").replace(".", "").lstrip("0")) or 1
        return math.ceil(digits / 2) + 1
    if kind == "BOOL":
        return 1
    raise ValueError(kind)


def item_size(item: dict) -> int:
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())


def main() -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        import boto3
        from chalice.test import Client

        from app import app
        from chalicelib.actions.users.users import NewUser, do_create_user
        from chalicelib.actions.workflows.realms import do_create_realm
        from chalicelib.models.presence import Presence, presence_expiry
        from chalicelib.rules import presence_rules

        clock = {"now": time.time()}
        presence_rules.now = lambda: clock["now"]   # an hour of pings without waiting
        dynamodb = boto3.client("dynamodb")


        with Client(app) as client:
            call = api_caller(client)

            # -- write units per connected client-hour ------------------------------------
            realm, _, key = do_create_realm("Pings", "pings", NewUser(
                email="o@pings.example.com", full_name="Owner", role=100))
            me = form_headers("o@pings.example.com", key)
            print("pings every 60 s per client for an hour (ping_only), after the hour's "
                  "first ping")
            print(f"{'scenario':<40} {'pings':<7} {'write requests':<15} {'write units':<12} "
                  "requests")
            scenarios = (("1 client, active", 1, lambda minute: "active"),
                         ("3 clients of one user, active", 3, lambda minute: "active"),
                         ("1 client, idle 3 of every 10 minutes", 1,
                          lambda minute: "active" if minute % 10 < 7 else "idle"))
            for name, clients, status_at in scenarios:
                clock["now"] += 3600   # offline in between: each hour starts afresh
                call("POST", "/users/me/presence", me, status="active", ping_only=True)
                units_before = counter.units.copy()
                with counter.measure() as delta:
                    for minute in range(60):
                        for _ in range(clients):   # the clients' pings spread over the minute
                            clock["now"] += 60 / clients
                            call("POST", "/users/me/presence", me, status=status_at(minute),
                                 ping_only=True)
                units = counter.units - units_before
                ops = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                writes = sum(n for op, n in ops.items()
                             if op in ("UpdateItem", "PutItem", "TransactWriteItems"))
                print(f"{name:<40} {60 * clients:<7} {writes:<15} {units['write']:<12g} "
                      f"{ops}")
            print("(a write unit per UpdateItem of a ~75-byte item; coming back online adds "
                  "the presence event: a transaction of 2 items, 4 units. The GetItems are "
                  "the API key and the user's own item, half a read unit each. Users with "
                  "no client connected cost nothing: no pings, and TTL expiry is free)")

            # -- reads at 100 and 1,000 users -----------------------------------------------
            print(f"\n{'realm users':<12} {'call':<36} {'requests':<9} {'read units':<11} "
                  f"{'items':<6} ms")
            for size in REALM_SIZES:
                realm, _, key = do_create_realm(f"R{size}", f"r{size}", NewUser(
                    email=f"o@r{size}.example.com", full_name="Owner", role=100))
                auth = form_headers(f"o@r{size}.example.com", key)
                users = [do_create_user(realm.realm_id, NewUser(
                    email=f"user{n}@r{size}.example.com", full_name=f"User {n}"))[0]
                    for n in range(size - 1)]
                now = clock["now"]
                with Presence.batch_write() as batch:   # everyone connected recently
                    for n, user in enumerate(users):
                        batch.save(Presence(realm.realm_id, user.user_id, email=user.email,
                                            active_at=int(now) - n % 300,
                                            connected_at=int(now) - n % 120,
                                            update_id=int(now * 1000) - n,
                                            expires_at=presence_expiry()))
                raw = dynamodb.query(TableName=Presence.Meta.table_name,
                                     KeyConditionExpression="realm_id = :r",
                                     ExpressionAttributeValues={":r": {"N": str(
                                         realm.realm_id)}})["Items"]
                query_units = math.ceil(sum(item_size(i) for i in raw) / 4096) * 0.5
                cases = [
                    ("GET /realm/presence", "GET", "/realm/presence", {}),
                    ("POST /users/me/presence (fetching)", "POST", "/users/me/presence",
                     {"status": "active", "last_update_id": -1}),
                    ("POST /register (presence)", "POST", "/register",
                     {"fetch_event_types": ["presence"], "event_types": ["message"]}),
                ]
                for name, method, path, params in cases:
                    clock["now"] += 61
                    started = time.perf_counter()
                    with counter.measure() as delta:
                        body = call(method, path, auth, **params)
                    ms = (time.perf_counter() - started) * 1000
                    ops = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                    presence_queries = ops.get("Query", 0)
                    assert len(body["presences"]) >= size - 1
                    print(f"{size:<12} {name:<36} {sum(ops.values()):<9} "
                          f"{query_units:<11g} {len(raw):<6} {ms:.0f}  {ops} "
                          f"({presence_queries} Query, presence's read units shown)")
                print(f"{'':<12} average item {sum(item_size(i) for i in raw) / len(raw):.0f} "
                      "bytes; one Query page holds up to 1 MB (about 15,000 users)")


if __name__ == "__main__":
    main()
