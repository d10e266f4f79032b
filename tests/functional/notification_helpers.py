"""Runs the notifier the way the stream and the delayed queue run it on AWS, synchronously.

Delayed jobs are made due at once in moto's queue (the test moves the notifications'
clock past the batching period instead of waiting); sent emails are read back from
moto's SES, pushes from moto's SNS endpoints."""
from __future__ import annotations

import email
import email.policy
import json
import threading
import time
from email.message import EmailMessage
from typing import Any

from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends
from moto.sns.models import sns_backends
from moto.sqs.models import sqs_backends

from chalicelib import config
from chalicelib.notifications.notifier import handle_notifier_batch
from infra.local.pollers import SqsPoller


class Clock:
    """The presence clock (also the notifications' clock), moved instead of waiting."""

    def __init__(self) -> None:
        self.now = time.time()

    def advance(self, seconds: float) -> None:
        self.now += seconds


class NotifierQueue:
    def __init__(self, drain_events: Any) -> None:
        self.drain_events = drain_events
        self.name = config.notification_queue_name()
        self.poller = SqsPoller(handle_notifier_batch, "notifier", self.name,
                                threading.Event(), batch_size=10)
        self.handled: list[dict[str, Any]] = []

    def _queue(self) -> Any:
        return sqs_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].get_queue(self.name)

    def jobs(self) -> list[dict[str, Any]]:
        """The jobs waiting in the queue (delayed ones too)."""
        return [json.loads(m.body) for m in self._queue()._messages]

    def run(self, rounds: int = 5) -> None:
        """Fan-out, then every job in the queue, delayed ones made due."""
        self.drain_events()
        for _ in range(rounds):
            for message in self._queue()._messages:
                message.delayed_until = 0
            batch = self.jobs()
            if not self.poller.poll_once():
                break
            self.handled += batch
        self.drain_events()

    def finish_earlier_tests(self, clock: Clock) -> None:
        """Runs every job the tests before left in the queue, however many (a worker's
        earlier files can leave more than a test's few rounds take), their periods over."""
        clock.advance(8 * 24 * 3600)
        self.run(rounds=10_000)
        clock.now -= 8 * 24 * 3600

    def run_due(self, rounds: int = 5) -> None:
        """The jobs due now (decide jobs, pushes), without the fan-out and without
        making delayed ones due."""
        for _ in range(rounds):
            batch = [json.loads(m.body) for m in self._queue()._messages
                     if m.delayed_until <= time.time() * 1000]   # ms
            if not self.poller.poll_once():
                break
            self.handled += batch

    def replay(self, job: dict[str, Any]) -> Any:
        """Delivers a job again, as SQS may (at-least-once)."""
        record = {"messageId": f"replay-{time.time_ns()}", "receiptHandle": "replay",
                  "body": json.dumps(job), "attributes": {}, "messageAttributes": {},
                  "md5OfBody": "", "eventSource": "aws:sqs",
                  "eventSourceARN": f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT_ID}:{self.name}",
                  "awsRegion": "us-east-1"}
        return handle_notifier_batch({"Records": [record]})


def sent_mail(to: str) -> list[EmailMessage]:
    """The raw emails moto's SES accepted for this address, parsed."""
    backend = ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    found = []
    for message in backend.sent_messages:
        raw = getattr(message, "raw_data", None)
        if raw is None or not any(to in d for d in message.destinations):
            continue
        parsed = email.message_from_string(raw, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        found.append(parsed)
    return found


def text_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def endpoint_messages(endpoint_arn: str) -> list[dict[str, Any]]:
    """What SNS published to one platform endpoint (the GCM form's data)."""
    endpoint = sns_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].platform_endpoints[endpoint_arn]
    return [json.loads(json.loads(m)["GCM"])["data"] for m in endpoint.messages.values()]
