"""Outgoing webhooks that go wrong: error answers, unreachable receivers (backoff, notices,
dead-letter queue), duplicate SQS deliveries, refused addresses, a failed enqueue."""
from __future__ import annotations

import json
import socket
import threading

import pytest

from chalicelib.aws import aws_clients
from chalicelib.delivery.webhook_jobs import DeliveryJob
from chalicelib.fanout.batch import handle_stream_batch
from chalicelib.webhooks import delivery as webhook_delivery
from chalicelib.webhooks import worker as webhook_worker
from chalicelib.webhooks.delivery import RetryLater, deliver
from tests.functional.edit_helpers import channel, send
from tests.functional.webhook_helpers import (
    direct_messages,
    make_bot,
    sent_by,
    topic_messages,
)


def owner_notices(owner, bot: dict) -> list[str]:
    return [m["content"] for m in direct_messages(owner) if m["sender_id"] == bot["user_id"]]


def job_of(webhooks, message_id: int) -> DeliveryJob:
    """The job the fan-out queued for this message (left in the queue)."""
    webhooks.drain_events()
    for raw in webhooks.sqs.receive_message(QueueUrl=webhooks.url, MaxNumberOfMessages=10,
                                            VisibilityTimeout=0)["Messages"]:
        job = DeliveryJob.from_body(raw["Body"])
        if job.message_id == message_id:
            return job
    raise AssertionError("no job queued")


def test_an_error_answer_posts_failure_notices_and_is_not_retried(realm, receiver, webhooks):
    bot = make_bot(realm.member, receiver.url)
    receiver.answer({"msg": "boom"}, status=500)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    send(realm.owner, "talk", "t", "@**Echo Bot** please")
    webhooks.run()
    assert len(receiver.requests) == 1
    assert sent_by(topic_messages(realm.owner, "talk", "t"), bot["user_id"]) == [
        "Failure! Third party responded with 500"]
    [notice] = owner_notices(realm.member, bot)   # from the bot to its owner
    assert "to your bot" in notice and "status code *500*" in notice
    assert '{"msg": "boom"}' in notice


@pytest.mark.parametrize("body, problem", [
    (b"<html>not json</html>", "The bot's answer cannot be parsed as JSON"),
    (b"[1, 2]", "The bot's answer is not a JSON object"),
    (json.dumps({"content": "x" * 10001}).encode(), "Message too long"),
])
def test_an_unusable_answer_posts_failure_notices(realm, receiver, webhooks, body, problem):
    bot = make_bot(realm.member, receiver.url)
    receiver.answer(body)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    send(realm.owner, "talk", "t", "@**Echo Bot** hi")
    webhooks.run()
    [notice] = sent_by(topic_messages(realm.owner, "talk", "t"), bot["user_id"])
    assert notice.startswith(f"Failure! {problem}")
    [owner_notice] = owner_notices(realm.member, bot)
    assert "attempted to send a message" in owner_notice and problem in owner_notice


def test_an_unreachable_receiver_backs_off_then_reports_and_dead_letters(
        realm, webhooks, monkeypatch):
    # GIVEN a bot whose receiver is down (nothing listens on port 9)
    monkeypatch.setenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", "loopback")
    bot = make_bot(realm.member, "http://127.0.0.1:9/")
    channel(realm.owner, "talk", [realm.owner, realm.member])
    delays: list[tuple[int, str]] = []
    original_delay = webhook_worker._delay

    def recording_delay(record, seconds):
        delays.append((seconds, record["receiptHandle"]))
        original_delay(record, seconds)

    monkeypatch.setattr(webhook_worker, "_delay", recording_delay)
    message_id = send(realm.owner, "talk", "t", "@**Echo Bot** anyone?")
    # WHEN the first attempt fails
    webhooks.run()
    # THEN SQS keeps the job out of sight for the first backoff, and nobody is told yet
    assert [seconds for seconds, _ in delays] == [5]
    assert webhooks.sqs.receive_message(QueueUrl=webhooks.url).get("Messages") is None
    assert sent_by(topic_messages(realm.owner, "talk", "t"), bot["user_id"]) == []
    # WHEN the next attempts come (sooner here) and fail too
    monkeypatch.setenv("WEBHOOK_RETRY_DELAYS_SECONDS", "0")
    webhooks.sqs.change_message_visibility(QueueUrl=webhooks.url, ReceiptHandle=delays[0][1],
                                           VisibilityTimeout=0)
    webhooks.run()
    # THEN after the fourth the conversation and the owner are told, once
    assert [seconds for seconds, _ in delays] == [5, 0, 0, 0]
    assert sent_by(topic_messages(realm.owner, "talk", "t"), bot["user_id"]) == [
        "Failure! Bot is unavailable"]
    [notice] = owner_notices(realm.member, bot)
    assert "A connection error occurred. Is my bot server down?" in notice
    # AND the message is kept, and its job is in the dead-letter queue
    assert message_id in [m["id"] for m in topic_messages(realm.owner, "talk", "t")]
    [job] = [j for j in webhooks.dead_letters() if j["message_id"] == message_id]
    assert job["bot_id"] == bot["user_id"]
    assert webhooks.sqs.receive_message(QueueUrl=webhooks.url).get("Messages") is None
    # AND another copy of that job follows it there without a second notice
    with pytest.raises(RetryLater):
        deliver(DeliveryJob.from_body(json.dumps(job)))


def test_a_timeout_is_retried_and_reported_as_one(realm, webhooks, monkeypatch):
    # GIVEN a receiver that accepts connections but never answers
    monkeypatch.setenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", "loopback")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    monkeypatch.setattr(webhook_delivery, "REQUEST_TIMEOUT_SECONDS", 0.3)
    bot = make_bot(realm.member, f"http://127.0.0.1:{silent.getsockname()[1]}/")
    channel(realm.owner, "talk", [realm.owner, realm.member])
    job = job_of(webhooks, send(realm.owner, "talk", "t", "@**Echo Bot** slow?"))
    try:
        # WHEN the first attempt times out THEN it waits for the first backoff
        with pytest.raises(RetryLater) as first:
            deliver(job)
        assert first.value.delay_seconds == 5
        # WHEN the last attempt times out THEN both are told about the timeout
        monkeypatch.setattr(webhook_delivery, "MAX_ATTEMPTS", 2)
        with pytest.raises(RetryLater) as last:
            deliver(job)
        assert last.value.delay_seconds == 0
    finally:
        silent.close()
    assert sent_by(topic_messages(realm.owner, "talk", "t"), bot["user_id"]) == [
        "Failure! Bot is unavailable"]
    assert "Request timed out after 0.3 seconds." in owner_notices(realm.member, bot)[0]


def test_a_job_delivered_twice_reaches_the_receiver_once(realm, receiver, webhooks):
    # GIVEN a job that SQS holds twice
    bot = make_bot(realm.member, receiver.url)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    message_id = send(realm.owner, "talk", "t", "@**Echo Bot** once")
    job = job_of(webhooks, message_id)
    webhooks.sqs.send_message(QueueUrl=webhooks.url, MessageBody=json.dumps(job.__dict__))
    # WHEN both copies are handled THEN the receiver gets one request and one reply is posted
    webhooks.run()
    assert len(receiver.requests) == 1
    assert sent_by(topic_messages(realm.owner, "talk", "t"), bot["user_id"]) == ["beep boop"]
    assert deliver(job) == "duplicate"


def test_concurrent_copies_of_a_job_post_once(realm, receiver, webhooks):
    make_bot(realm.member, receiver.url)
    receiver.delay = 0.3   # the first copy is still waiting when the second claims
    channel(realm.owner, "talk", [realm.owner, realm.member])
    job = job_of(webhooks, send(realm.owner, "talk", "t", "@**Echo Bot** race"))
    outcomes: list[str] = []
    threads = [threading.Thread(target=lambda: outcomes.append(deliver(job)))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["delivered", "duplicate", "duplicate"]
    assert len(receiver.requests) == 1


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest/meta-data/",
                                 "http://[::ffff:10.0.0.1]/", "LOOPBACK"])
def test_internal_addresses_are_refused(realm, receiver, webhooks, monkeypatch, url):
    # GIVEN a bot whose URL is internal, on a deployment that allows no internal hosts
    monkeypatch.delenv("ALLOW_PRIVATE_WEBHOOK_HOSTS")
    bot = make_bot(realm.member, receiver.url if url == "LOOPBACK" else url)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    job = job_of(webhooks, send(realm.owner, "talk", "t", "@**Echo Bot** metadata please"))
    # WHEN it is triggered THEN nothing is sent, and the conversation and owner are told
    assert deliver(job) == "refused"
    assert receiver.requests == []
    expected = "The URL configured for the webhook is for a private or disallowed network."
    assert sent_by(topic_messages(realm.owner, "talk", "t"), bot["user_id"]) == [
        f"Failure! {expected}"]
    assert expected in owner_notices(realm.member, bot)[0]


def test_a_failed_enqueue_fails_the_stream_record_until_it_succeeds(realm, receiver, webhooks,
                                                                    monkeypatch):
    # GIVEN SQS refuses the fan-out's send
    make_bot(realm.member, receiver.url)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    webhooks.drain_events()
    send(realm.owner, "talk", "t", "@**Echo Bot** eventually")
    records = webhooks.drain_events.read()
    sqs = aws_clients.sqs()

    def refuse(**kwargs):
        raise RuntimeError("SQS is unavailable")

    monkeypatch.setattr(sqs, "send_message_batch", refuse)
    # WHEN the stream batch is handled THEN the job's record is reported as failed
    result = handle_stream_batch({"Records": records})
    job_records = [r for r in records if "_outgoing_webhook" in json.dumps(r)]
    # (and the message's own record: its hand-off to the notifier is an SQS send too)
    message_records = [r for r in records if r not in job_records
                       and "eventually" in json.dumps(r)]
    assert len(job_records) == len(message_records) == 1
    assert sorted(f["itemIdentifier"] for f in result["batchItemFailures"]) == sorted(
        r["dynamodb"]["SequenceNumber"] for r in job_records + message_records)
    # WHEN the stream offers it again and SQS accepts THEN it is delivered once
    monkeypatch.undo()
    monkeypatch.setenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", "loopback")
    assert handle_stream_batch({"Records": records})["batchItemFailures"] == []
    webhooks.run()
    assert len(receiver.requests) == 1
