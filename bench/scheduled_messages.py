"""Scheduled messages: what scheduling one and delivering it cost, in requests and units.

Run: .venv/bin/python -m bench.scheduled_messages

Counts come from botocore (every request the code makes, DynamoDB and EventBridge
Scheduler); write units by DynamoDB's on-demand rules (bench/common.py). Delivery is
the schedule's one Lambda invocation; the delivered message's fan-out is a message's
like any other (bench.read_state).
"""
from __future__ import annotations

import json
import time
from datetime import UTC, datetime

from bench.common import RequestCounter, bench_realm, form_headers, moto_backend


def main() -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app
        from infra.local.schedules import fire_due
        from infra.local.stream_drain import OutboxDrain

        realm, owner_id, key = bench_realm()
        drain = OutboxDrain()
        headers = form_headers("o@bench.example.com", key)
        with Client(app) as client:
            def call(method: str, path: str, params: dict) -> dict:
                from urllib.parse import urlencode
                body = urlencode({k: v if isinstance(v, str) else json.dumps(v)
                                  for k, v in params.items()})
                response = getattr(client.http, method)(f"/api/v1{path}", body=body.encode(),
                                                        headers=headers)
                assert response.status_code == 200, response.body
                return json.loads(response.body)

            call("post", "/users/me/subscriptions", {"subscriptions": [{"name": "general"}]})
            drain()
            from chalicelib.models.channels import Stream
            stream_id = next(s.stream_id for s in Stream.query(realm.realm_id))
            at = int(time.time()) + 3600
            rows = []
            for kind, to, extra in (("stream", json.dumps(stream_id), {"topic": "t"}),
                                    ("direct", json.dumps([owner_id]), {})):
                units = counter.units.copy()
                with counter.measure() as scheduled:
                    call("post", "/scheduled_messages", {"type": kind, "to": to,
                                                         "content": "later",
                                                         "scheduled_delivery_timestamp": at,
                                                         **extra})
                schedule_wcu = (counter.units - units).get("write", 0.0)
                units = counter.units.copy()
                started = time.perf_counter()
                with counter.measure() as delivered:
                    results = fire_due(app.handler_map["scheduled_messages"],
                                       now=datetime.fromtimestamp(at, UTC))
                elapsed = (time.perf_counter() - started) * 1000
                deliver_wcu = (counter.units - units).get("write", 0.0)
                assert results == ["sent"], results
                rows.append((kind, scheduled, schedule_wcu, delivered, deliver_wcu, elapsed))
            for kind, scheduled, s_wcu, delivered, d_wcu, elapsed in rows:
                print(f"\n{kind} message")
                print(f"  POST /scheduled_messages: {sum(scheduled.values())} requests "
                      f"{dict(scheduled)}, {s_wcu:.0f} WCU")
                print(f"  delivery (runner + handler): {sum(delivered.values())} requests "
                      f"{dict(delivered)}, {d_wcu:.0f} WCU, {elapsed:.0f} ms")


if __name__ == "__main__":
    main()
