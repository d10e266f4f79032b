"""Shared setup for the outgoing-webhook tests: a loopback receiver and the SQS path."""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3

from chalicelib import config
from chalicelib.webhooks.worker import handle_webhook_batch
from infra.local.pollers import SqsPoller


@dataclass
class ReceivedRequest:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    """A webhook receiver on loopback that records requests and answers as told."""

    def __init__(self) -> None:
        self.requests: list[ReceivedRequest] = []
        self.status = 200
        self.body = json.dumps({"content": "beep boop"}).encode()
        self.delay = 0.0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append(ReceivedRequest(self.path, dict(self.headers), body))
                time.sleep(receiver.delay)
                self.send_response(receiver.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(receiver.body)))
                self.end_headers()
                self.wfile.write(receiver.body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, body: Any, status: int = 200) -> None:
        """The next answers: `body` as JSON, or as given when it is bytes."""
        self.body = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.status = status

    @property
    def payloads(self) -> list[dict[str, Any]]:
        return [r.json for r in self.requests]


class WebhookQueue:
    """Runs what the stream and the SQS trigger run on AWS, synchronously."""

    def __init__(self, drain_events) -> None:
        self.drain_events = drain_events
        self.sqs = boto3.client("sqs", region_name="us-east-1")
        self.url = self.sqs.get_queue_url(QueueName=config.webhook_queue_name())["QueueUrl"]
        self.dlq_url = self.sqs.get_queue_url(
            QueueName=config.webhook_queue_name() + "-dlq")["QueueUrl"]
        self.poller = SqsPoller(handle_webhook_batch, "outgoing_webhooks",
                                config.webhook_queue_name(), threading.Event(), batch_size=5)

    def run(self) -> None:
        self.drain_events()                  # outbox -> SQS
        while self.poller.poll_once():       # SQS -> receiver (retries offered at once)
            pass
        self.drain_events()                  # replies -> event queues

    def dead_letters(self) -> list[dict[str, Any]]:
        messages = self.sqs.receive_message(QueueUrl=self.dlq_url, MaxNumberOfMessages=10,
                                            VisibilityTimeout=0).get("Messages", [])
        return [json.loads(m["Body"]) for m in messages]


def make_bot(account, url: str, short_name: str = "echo", full_name: str = "Echo Bot",
             **extra: Any) -> dict[str, Any]:
    response = account.post("/bots", {"full_name": full_name, "short_name": short_name,
                                      "bot_type": 3, "payload_url": json.dumps(url), **extra})
    assert response.ok, response.json
    [bot] = [b for b in account.get("/bots").json["bots"]
             if b["user_id"] == response.json["user_id"]]
    return bot


def topic_messages(account, stream: str, topic: str) -> list[dict[str, Any]]:
    response = account.get("/messages", {
        "anchor": "newest", "num_before": 50, "num_after": 0, "apply_markdown": False,
        "narrow": [{"operator": "channel", "operand": stream},
                   {"operator": "topic", "operand": topic}]})
    assert response.ok, response.json
    return response.json["messages"]


def direct_messages(account) -> list[dict[str, Any]]:
    response = account.get("/messages", {
        "anchor": "newest", "num_before": 50, "num_after": 0, "apply_markdown": False,
        "narrow": [{"operator": "is", "operand": "dm"}]})
    assert response.ok, response.json
    return response.json["messages"]


def sent_by(messages: list[dict[str, Any]], user_id: int) -> list[str]:
    return [m["content"] for m in messages if m["sender_id"] == user_id]
