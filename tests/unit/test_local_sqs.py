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
    urls = [sqs.create_queue(QueueName=f"jobs-{n}")["QueueUrl"] for n in range(20)]
    for url in urls:
        sqs.send_message(QueueUrl=url, MessageBody="1")
    records.clear()
    sqs.send_message(QueueUrl=urls[3], MessageBody="1")
    (record,) = records
    assert [(kind, name) for kind, _, _, name, _ in record] == [("sqs-queue", "jobs-3")]


def test_a_wake_queue_journals_its_existence_not_its_wake_ups(journaled_sqs):
    sqs, records = journaled_sqs
    url = sqs.create_queue(QueueName="stage-wake-q1")["QueueUrl"]
    assert [kind for (kind, *_rest), in records] == ["sqs"]   # created: journaled
    records.clear()
    sqs.send_message(QueueUrl=url, MessageBody="1")
    assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"]
    assert records == []   # a wake-up and its receipt: not journaled
    sqs.delete_queue(QueueUrl=url)
    (record,) = records
    assert [(kind, name, queue) for kind, _, _, name, queue in record] == [
        ("sqs-queue", "stage-wake-q1", None)]


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


def test_a_message_hidden_past_its_retention_is_dropped_when_received(journaled_sqs):
    """As the wake queues' waiters receive (wake.py): hidden for longer than it lives,
    a received message can never be seen again, so it is not kept."""
    sqs, records = journaled_sqs
    url = sqs.create_queue(QueueName="wakes", Attributes={
        "MessageRetentionPeriod": "60"})["QueueUrl"]
    from moto.sqs.models import sqs_backends

    queue = sqs_backends["123456789012"]["us-east-1"].queues["wakes"]
    for body in ("1", "2"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    records.clear()
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1,
                                   VisibilityTimeout=43200)["Messages"]
    assert [m["Body"] for m in received] == ["1"]
    assert [m.body for m in queue._messages] == ["2"]
    # the journal has the queue as it now is
    assert [m.body for m in records[-1][0][-1]._messages] == ["2"]


def test_a_message_hidden_within_its_retention_stays_to_come_back(journaled_sqs):
    sqs, _ = journaled_sqs
    url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="job")
    assert sqs.receive_message(QueueUrl=url, VisibilityTimeout=1)["Messages"]
    time.sleep(1.1)
    assert [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]] == ["job"]


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


def test_an_idle_poller_waits_in_its_receive_and_hands_over_a_message_at_once(
        journaled_sqs, monkeypatch):
    from infra.local.pollers import SqsPoller

    sqs, _ = journaled_sqs
    url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
    handled: list[tuple[str, float]] = []
    receives: list[int] = []
    stop = threading.Event()
    poller = SqsPoller(lambda event, _context: handled.extend(
        (r["body"], time.monotonic()) for r in event["Records"]), "jobs", "jobs", stop)
    receive = poller.sqs.receive_message
    monkeypatch.setattr(poller.sqs, "receive_message",
                        lambda **kwargs: receives.append(1) or receive(**kwargs))
    poller.start()
    try:
        # GIVEN a poller with nothing to read for two seconds
        time.sleep(2)
        # THEN it asked a few times, not every 50 ms (that was 40 requests)
        assert 1 <= len(receives) <= 4
        # WHEN a job arrives, it reaches the handler without waiting for the next look
        sent = time.monotonic()
        sqs.send_message(QueueUrl=url, MessageBody="job")
        deadline = time.monotonic() + 5
        while not handled and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [body for body, _ in handled] == ["job"]
        assert handled[0][1] - sent < 0.5
        assert "Messages" not in sqs.receive_message(QueueUrl=url)   # and was deleted
    finally:
        stop.set()
        poller.join(timeout=5)


def test_a_message_is_sent_while_dynamodb_holds_its_lock(journaled_sqs):
    """SQS does not wait behind DynamoDB's batch writes and queries (its own lock)."""
    from infra import moto_patches

    sqs, _ = journaled_sqs
    url = sqs.create_queue(QueueName="stage-wake-q2")["QueueUrl"]
    holding, release = threading.Event(), threading.Event()

    def hold_dynamodb() -> None:
        with moto_patches.write_lock():
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold_dynamodb)
    holder.start()
    try:
        assert holding.wait(5)
        sent = time.monotonic()
        sqs.send_message(QueueUrl=url, MessageBody="1")
        assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"]
        assert time.monotonic() - sent < 2
    finally:
        release.set()
        holder.join(5)


def test_the_journal_switches_files_only_when_neither_backend_is_changing(tmp_path):
    from infra import moto_patches
    from infra.local.journal import Journal

    journal = Journal(tmp_path, 1)
    rotated = threading.Event()
    with moto_patches.queue_lock():
        rotating = threading.Thread(target=lambda: (journal.rotate(), rotated.set()))
        rotating.start()
        # WHEN an SQS change is under way THEN the journal keeps its file until it ends
        assert not rotated.wait(0.3)
    assert rotated.wait(5)
    rotating.join(5)
    assert journal.generation == 2
    journal.close()
