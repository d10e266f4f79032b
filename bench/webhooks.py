"""Outgoing webhooks: requests per delivery (in-process moto) and the delay from
POST /messages to the receiver getting the payload on the local stack (`make run`).

Run: .venv/bin/python -m bench.webhooks   (part of `make bench`)
"""
from __future__ import annotations

import json
import os
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.common import RequestCounter, moto_backend


class Receiver:
    """Answers every webhook with response_not_required and notes when each arrived."""

    def __init__(self) -> None:
        self.arrivals: dict[int, float] = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.arrivals[payload["message"]["id"]] = time.perf_counter()
                body = b'{"response_not_required": true}'
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def requests_per_delivery() -> None:
    os.environ["ALLOW_PRIVATE_WEBHOOK_HOSTS"] = "loopback"
    counter = RequestCounter()
    counter.install()
    receiver = Receiver()
    with moto_backend():
        import boto3

        from chalicelib import config
        from chalicelib.actions.bots import do_create_bot
        from chalicelib.actions.message_send import check_send_message
        from chalicelib.actions.realms import do_create_realm
        from chalicelib.actions.subscriptions import check_subscribe
        from chalicelib.actions.users import NewUser
        from chalicelib.events.webhook_worker import handle_webhook_batch
        from chalicelib.http.auth import Principal
        from chalicelib.models.users import User
        from infra.local.pollers import SqsPoller
        from infra.local.stream_drain import OutboxDrain

        boto3.client("sqs", region_name="us-east-1")
        realm, owner_id, _ = do_create_realm("Bench", "bench", NewUser(
            email="o@bench.example.com", full_name="Owner", role=100))
        owner = Principal(realm.realm_id, owner_id, "o@bench.example.com", 100, False)
        check_subscribe(owner, [{"name": "general"}], None, False, None, False)
        do_create_bot(realm.realm_id, User.get(realm.realm_id, owner_id), "Echo", "echo",
                      receiver.url)
        drain = OutboxDrain()
        drain()
        poller = SqsPoller(handle_webhook_batch, "outgoing_webhooks",
                           config.webhook_queue_name(), threading.Event())
        deliveries = 20
        for n in range(deliveries):
            check_send_message(owner, message_type="stream", to="general", topic="t",
                               content=f"@**Echo** {n}")
        with counter.measure() as enqueue:
            drain()
        with counter.measure() as deliver:
            while poller.poll_once():
                pass
        assert len(receiver.arrivals) == deliveries

    def per(delta: Any, service: str) -> str:
        ops = {op: n / deliveries for (svc, op), n in delta.items() if svc == service}
        return f"{sum(ops.values()):.2f} {ops}"

    print("Requests per outgoing-webhook delivery (20 deliveries, in-process moto):")
    print(f"  fan-out (outbox record -> SQS): SQS {per(enqueue, 'sqs')}")
    print(f"  worker  (SQS -> receiver):      SQS {per(deliver, 'sqs')}")
    print(f"                                  DynamoDB {per(deliver, 'dynamodb')}")


def delivery_delay(rounds: int = 20) -> None:
    import requests

    from infra.local.launcher import start_stack

    receiver = Receiver()
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        state.mkdir()
        stack = start_stack(state)
        try:
            owner = stack.accounts()["owner"]
            auth = (owner["email"], owner["api_key"])
            api = f"{stack.url}/api/v1"
            assert requests.post(f"{api}/bots", auth=auth, timeout=10, data={
                "full_name": "Echo", "short_name": "echo", "bot_type": "3",
                "payload_url": json.dumps(receiver.url)}).json()["result"] == "success"
            delays: list[float] = []
            responded: list[float] = []
            for n in range(rounds):
                started = time.perf_counter()
                sent = requests.post(f"{api}/messages", auth=auth, timeout=10, data={
                    "type": "stream", "to": "general", "topic": "bench",
                    "content": f"@**Echo** {n}"}).json()
                responded.append((time.perf_counter() - started) * 1000)
                deadline = time.monotonic() + 20
                while sent["id"] not in receiver.arrivals and time.monotonic() < deadline:
                    time.sleep(0.005)
                delays.append((receiver.arrivals[sent["id"]] - started) * 1000)
        finally:
            stack.stop()
    delays.sort()
    print(f"\nLocal stack: POST /messages -> receiver has the payload ({rounds} messages): "
          f"p50 {statistics.median(delays):.0f} ms, max {delays[-1]:.0f} ms "
          f"(of which the POST /messages response: p50 {statistics.median(responded):.0f} ms)")


if __name__ == "__main__":
    requests_per_delivery()
    delivery_delay()
