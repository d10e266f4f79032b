"""Outgoing webhooks: SQS and DynamoDB requests per delivery (in-process moto) and the delay
from POST /messages to the receiver getting the payload on the local stack (`make run`).

Run: .venv/bin/python -m bench.webhooks   (part of `make bench`)
"""
from __future__ import annotations

import collections
import json
import os
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.common import RequestCounter, bench_realm, moto_backend

DELIVERIES = 20


class Receiver:
    """Notes when each payload arrived; answers with `reply` (nothing to say by default)."""

    def __init__(self) -> None:
        self.arrivals: dict[int, float] = {}
        self.reply: dict[str, Any] = {"response_not_required": True}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.arrivals[payload["message"]["id"]] = time.perf_counter()
                body = json.dumps(receiver.reply).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def per_delivery(delta: collections.Counter, service: str) -> str:
    ops = {op: n / DELIVERIES for (svc, op), n in sorted(delta.items()) if svc == service}
    return f"{sum(ops.values()):.2f} {ops}"


def requests_per_delivery() -> None:
    os.environ["ALLOW_PRIVATE_WEBHOOK_HOSTS"] = "loopback"
    counter = RequestCounter()
    counter.install()
    receiver = Receiver()
    with moto_backend():
        from chalicelib import config
        from chalicelib.actions.channels.subscriptions import check_subscribe
        from chalicelib.actions.messages.send import check_send_message
        from chalicelib.actions.users.bots import do_create_bot
        from chalicelib.actions.users.users import NewUser, do_create_user
        from chalicelib.core.principal import Principal
        from chalicelib.models.users import User
        from chalicelib.webhooks.worker import handle_webhook_batch
        from infra.local.pollers import SqsPoller
        from infra.local.stream_drain import OutboxDrain

        realm, owner_id, _ = bench_realm()
        owner = Principal(realm.realm_id, owner_id, "o@bench.example.com", 100, False)
        check_subscribe(owner, [{"name": "general"}], None, False, None, False)
        do_create_user(realm.realm_id, NewUser(email="ann@bench.example.com", full_name="Ann"))
        do_create_bot(realm.realm_id, User.get(realm.realm_id, owner_id), "Echo", "echo",
                      receiver.url)
        drain = OutboxDrain()
        drain()
        poller = SqsPoller(handle_webhook_batch, "outgoing_webhooks",
                           config.webhook_queue_name(), threading.Event(), batch_size=5)

        def send(content: str) -> None:
            check_send_message(owner, message_type="stream", to="general", topic="t",
                               content=content)

        # The send: a message mentioning the bot against one mentioning a person.
        units = counter.units.copy()
        with counter.measure() as to_person:
            for n in range(DELIVERIES):
                send(f"@**Ann** {n}")
        person_units, units = counter.units - units, counter.units.copy()
        with counter.measure() as to_bot:
            for n in range(DELIVERIES):
                send(f"@**Echo** {n}")
        bot_units = counter.units - units
        # A burst: the fan-out sees all jobs in one stream batch, the worker polls batches.
        with counter.measure() as burst_enqueue:
            drain()
        with counter.measure() as burst_worker:
            while poller.poll_once():
                pass
        # One at a time (a quiet organization): a stream batch and a poll per message.
        enqueue: collections.Counter = collections.Counter()
        worker: collections.Counter = collections.Counter()
        replying: collections.Counter = collections.Counter()
        for replies, into in ((False, worker), (True, replying)):
            receiver.reply = {"content": "pong"} if replies else {"response_not_required": True}
            for n in range(DELIVERIES):
                send(f"@**Echo** {n}")
                with counter.measure() as fan_out:
                    drain()
                with counter.measure() as delivery:
                    poller.poll_once()
                if not replies:
                    enqueue.update(fan_out)
                into.update(delivery)
        assert len(receiver.arrivals) == 3 * DELIVERIES

    def total(delta: collections.Counter, service: str) -> float:
        return sum(n for (svc, _), n in delta.items() if svc == service) / DELIVERIES

    print(f"Requests per outgoing-webhook delivery ({DELIVERIES} deliveries, in-process moto):")
    print(f"  send (POST /messages): DynamoDB requests {total(to_bot, 'dynamodb'):.2f} "
          f"(a message mentioning a person: {total(to_person, 'dynamodb'):.2f}); write units "
          f"{bot_units['write'] / DELIVERIES:.2f} ({person_units['write'] / DELIVERIES:.2f}): "
          "the job is one more item in the message's transaction")
    print(f"  fan-out, one job per stream batch: SQS {per_delivery(enqueue, 'sqs')} "
          "(its DynamoDB requests are the message event's own fan-out)")
    print(f"  fan-out, {DELIVERIES} jobs in one stream batch: "
          f"SQS {per_delivery(burst_enqueue, 'sqs')}")
    print(f"  worker, one job per poll: SQS {per_delivery(worker, 'sqs')} (Lambda's poller "
          f"on AWS), DynamoDB {per_delivery(worker, 'dynamodb')}")
    print(f"  worker, {DELIVERIES} jobs in batches of 5: SQS {per_delivery(burst_worker, 'sqs')}, "
          f"DynamoDB {per_delivery(burst_worker, 'dynamodb')}")
    print(f"  worker, when the bot's reply is posted too: DynamoDB "
          f"{per_delivery(replying, 'dynamodb')}")


def delivery_delay(rounds: int = DELIVERIES) -> None:
    import requests

    from infra.local.launcher import fresh_stack

    receiver = Receiver()
    with fresh_stack() as stack:
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
    delays.sort()
    print(f"\nLocal stack: POST /messages -> receiver has the payload ({rounds} messages): "
          f"p50 {statistics.median(delays):.0f} ms, max {delays[-1]:.0f} ms "
          f"(of which the POST /messages response: p50 {statistics.median(responded):.0f} ms)")


if __name__ == "__main__":
    requests_per_delivery()
    delivery_delay()
