"""The local stack's SQS under its journal: what a change records, retention, long polls.

Wake queues (chalicelib/delivery/wake.py) make SQS the busiest service of the local
stack: a message per append, one long poll per waiting client. These keep its cost per
call independent of how many queues and messages the region holds.
"""
from __future__ import annotations

import threading
import time
from typing import Any

import boto3
import pytest
from moto import mock_aws

from infra.local import effects


@pytest.fixture
def journaled_sqs(monkeypatch: pytest.MonkeyPatch):
    for name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    records: list[list[tuple[Any, ...]]] = []
    with mock_aws():
        effects.start(records.append)
        try:
            yield boto3.client("sqs", region_name="us-east-1"), records
        finally:
            effects.start(None)


def test_a_message_journals_its_own_queue_not_the_region(journaled_sqs):
    sqs, records = journaled_sqs
    urls = [sqs.create_queue(QueueName=f"wake-{n}")["QueueUrl"] for n in range(20)]
    for url in urls:
        sqs.send_message(QueueUrl=url, MessageBody="1")
    records.clear()
    sqs.send_message(QueueUrl=urls[3], MessageBody="1")
    (record,) = records
    assert [(kind, name) for kind, _, _, name, _ in record] == [("sqs-queue", "wake-3")]


def test_messages_past_their_retention_are_dropped(journaled_sqs):
    sqs, _ = journaled_sqs
    url = sqs.create_queue(QueueName="short", Attributes={
        "MessageRetentionPeriod": "60"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="old")
    from moto.sqs.models import sqs_backends

    queue = sqs_backends["123456789012"]["us-east-1"].queues["short"]
    queue._messages[0].sent_timestamp -= 61_000   # sent 61 s ago
    sqs.send_message(QueueUrl=url, MessageBody="new")
    assert [m.body for m in queue._messages] == ["new"]


def test_a_long_poll_answers_when_a_message_arrives_not_at_its_next_look(journaled_sqs):
    sqs, _ = journaled_sqs
    url = sqs.create_queue(QueueName="waiter")["QueueUrl"]
    got: list[float] = []

    def wait() -> None:
        messages = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10).get("Messages", [])
        got.append(time.monotonic() if messages else float("inf"))

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    sent = time.monotonic()
    sqs.send_message(QueueUrl=url, MessageBody="wake up")
    waiter.join(timeout=10)
    assert got and got[0] - sent < 0.5


def test_a_waiting_long_poll_does_not_keep_looking(journaled_sqs, monkeypatch):
    sqs, _ = journaled_sqs
    url = sqs.create_queue(QueueName="idle")["QueueUrl"]
    looks = []
    counted = effects._lengths
    monkeypatch.setattr(effects, "_lengths", lambda queue: looks.append(1) or counted(queue))
    assert "Messages" not in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=2)
    # once when it starts and about once a second after (not every 50 ms)
    assert 2 <= len(looks) // 2 <= 4
