"""Outgoing webhooks: bots, triggers, delivery through SQS, replies, failures, duplicates."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import boto3
import pytest

from chalicelib import config
from chalicelib.actions.outgoing_webhooks import MAX_ATTEMPTS, DeliveryJob, deliver
from chalicelib.events.webhook_worker import handle_webhook_batch
from infra.local.pollers import SqsPoller
from tests.functional.edit_helpers import channel, send


class Receiver:
    """A webhook receiver on loopback that records payloads and answers as told."""

    def __init__(self) -> None:
        self.payloads: list[dict[str, Any]] = []
        self.status = 200
        self.reply: dict[str, Any] = {"content": "beep boop"}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.payloads.append(json.loads(body))
                data = json.dumps(receiver.reply).encode()
                self.send_response(receiver.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver(monkeypatch) -> Iterator[Receiver]:
    monkeypatch.setenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", "loopback")
    server = Receiver()
    yield server
    server.server.shutdown()


class WebhookQueue:
    """Runs what the stream and the SQS trigger run on AWS, synchronously."""

    def __init__(self, drain_events) -> None:
        self.drain_events = drain_events
        self.poller = SqsPoller(handle_webhook_batch, "outgoing_webhooks",
                                config.webhook_queue_name(), threading.Event())

    def run(self) -> None:
        self.drain_events()                  # outbox -> SQS
        while self.poller.poll_once():       # SQS -> receiver
            pass
        self.drain_events()                  # replies -> event queues


@pytest.fixture
def webhooks(drain_events) -> WebhookQueue:
    queue = WebhookQueue(drain_events)
    queue.run()   # earlier tests' jobs are not this test's business
    return queue


def make_bot(account, url: str, short_name: str = "echo") -> dict[str, Any]:
    response = account.post("/bots", {"full_name": "Echo Bot", "short_name": short_name,
                                      "bot_type": 3, "payload_url": json.dumps(url)})
    assert response.ok, response.json
    [bot] = [b for b in account.get("/bots").json["bots"]
             if b["user_id"] == response.json["user_id"]]
    return bot


def topic_messages(account, stream: str, topic: str) -> list[dict[str, Any]]:
    response = account.get("/messages", {
        "anchor": "newest", "num_before": 50, "num_after": 0, "apply_markdown": False,
        "narrow": [{"operator": "channel", "operand": stream},
                   {"operator": "topic", "operand": topic}]})
    return response.json["messages"]


def test_mention_delivers_the_payload_and_posts_the_reply(realm, receiver, webhooks):
    bot = make_bot(realm.member, receiver.url)
    [service] = bot["services"]
    assert service["base_url"] == receiver.url and len(service["token"]) == 32
    channel(realm.owner, "talk", [realm.owner, realm.member])
    message_id = send(realm.member, "talk", "hello", "@**Echo Bot** ping")
    webhooks.run()
    [payload] = receiver.payloads
    assert payload["token"] == service["token"] and payload["trigger"] == "mention"
    assert payload["bot_email"] == bot["email"] and payload["bot_full_name"] == "Echo Bot"
    assert payload["data"] == "@**Echo Bot** ping"
    assert payload["message"]["id"] == message_id
    assert payload["message"]["content"] == "@**Echo Bot** ping"
    assert payload["message"]["display_recipient"] == "talk"
    replies = [m for m in topic_messages(realm.member, "talk", "hello")
               if m["sender_id"] == bot["user_id"]]
    assert [m["content"] for m in replies] == ["beep boop"]
    # the bot's own reply triggers nothing
    assert len(receiver.payloads) == 1


def test_direct_message_trigger_and_legacy_reply(realm, receiver, webhooks):
    bot = make_bot(realm.member, receiver.url)
    receiver.reply = {"response_string": "legacy reply"}
    realm.owner.post("/messages", {"type": "direct", "to": json.dumps([bot["user_id"]]),
                                   "content": "hi bot"})
    webhooks.run()
    [payload] = receiver.payloads
    assert payload["trigger"] == "direct_message"
    dms = realm.owner.get("/messages", {"anchor": "newest", "num_before": 5, "num_after": 0,
                                        "apply_markdown": False}).json["messages"]
    assert dms[-1]["content"] == "legacy reply" and dms[-1]["sender_id"] == bot["user_id"]


def test_response_not_required_and_unmentioned_messages(realm, receiver, webhooks):
    make_bot(realm.member, receiver.url)
    receiver.reply = {"response_not_required": True, "content": "ignored"}
    channel(realm.owner, "talk", [realm.owner, realm.member])
    send(realm.member, "talk", "t", "no mention here")
    send(realm.member, "talk", "t", "@**Echo Bot** quietly")
    webhooks.run()
    assert len(receiver.payloads) == 1
    assert [m["content"] for m in topic_messages(realm.member, "talk", "t")] == [
        "no mention here", "@**Echo Bot** quietly"]


def test_error_status_posts_failure_notices(realm, receiver, webhooks):
    bot = make_bot(realm.member, receiver.url)
    receiver.status = 500
    channel(realm.owner, "talk", [realm.owner, realm.member])
    send(realm.owner, "talk", "t", "@**Echo Bot** please")
    webhooks.run()
    assert len(receiver.payloads) == 1   # an error answer is not retried
    notices = [m["content"] for m in topic_messages(realm.owner, "talk", "t")
               if m["sender_id"] == bot["user_id"]]
    assert notices == ["Failure! Bot responded with status code 500."]
    owner_dms = realm.member.get("/messages", {
        "anchor": "newest", "num_before": 5, "num_after": 0, "apply_markdown": False,
        "narrow": [{"operator": "is", "operand": "dm"}]}).json["messages"]
    assert "status code *500*" in owner_dms[-1]["content"]
    assert owner_dms[-1]["sender_full_name"] == "Notification Bot"


def test_unreachable_receiver_is_retried_then_reported(realm, receiver, webhooks):
    bot = make_bot(realm.member, "http://127.0.0.1:9/")   # nothing listens on port 9
    channel(realm.owner, "talk", [realm.owner, realm.member])
    message_id = send(realm.owner, "talk", "t", "@**Echo Bot** anyone?")
    webhooks.drain_events()
    # the first attempt fails and is reported back to SQS (with a longer invisibility)
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.get_queue_url(QueueName=config.webhook_queue_name())["QueueUrl"]
    [raw] = sqs.receive_message(QueueUrl=url, AttributeNames=["All"])["Messages"]
    record = {"messageId": raw["MessageId"], "receiptHandle": raw["ReceiptHandle"],
              "body": raw["Body"], "attributes": raw["Attributes"], "messageAttributes": {},
              "md5OfBody": raw["MD5OfBody"], "eventSource": "aws:sqs",
              "eventSourceARN": f"arn:aws:sqs:us-east-1:123456789012:{url.rsplit('/', 1)[-1]}",
              "awsRegion": "us-east-1"}
    result = handle_webhook_batch({"Records": [record]})
    assert result == {"batchItemFailures": [{"itemIdentifier": raw["MessageId"]}]}
    assert topic_messages(realm.owner, "talk", "t")[-1]["id"] == message_id   # no notice yet
    # the last attempt posts the notices (and leaves the job for the dead-letter queue)
    job = DeliveryJob.from_body(raw["Body"])
    with pytest.raises(Exception):
        deliver(job, MAX_ATTEMPTS)
    notice = topic_messages(realm.owner, "talk", "t")[-1]
    assert notice["sender_id"] == bot["user_id"]
    assert notice["content"].startswith("Failure! Maximum retries exceeded!")


def test_a_job_delivered_twice_reaches_the_receiver_once(realm, receiver, webhooks):
    bot = make_bot(realm.member, receiver.url)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    message_id = send(realm.owner, "talk", "t", "@**Echo Bot** once")
    job = DeliveryJob(realm.realm_id, message_id, bot["user_id"], "mention")
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.get_queue_url(QueueName=config.webhook_queue_name())["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps(job.__dict__))   # a duplicate
    webhooks.run()
    assert len(receiver.payloads) == 1
    assert deliver(job, 1) == "duplicate"


def test_internal_addresses_are_refused(realm, webhooks, monkeypatch):
    monkeypatch.delenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", raising=False)
    bot = make_bot(realm.member, "http://169.254.169.254/latest/meta-data/")
    channel(realm.owner, "talk", [realm.owner, realm.member])
    message_id = send(realm.owner, "talk", "t", "@**Echo Bot** metadata please")
    assert deliver(DeliveryJob(realm.realm_id, message_id, bot["user_id"], "mention"),
                   1) == "refused"
    notice = topic_messages(realm.owner, "talk", "t")[-1]
    assert "internal address" in notice["content"]


def test_bot_creation_rules(realm):
    assert realm.guest.post("/bots", {"full_name": "G", "short_name": "g"}).json["msg"] == \
        "Guests cannot create bots"
    missing = realm.member.post("/bots", {"full_name": "W", "short_name": "w", "bot_type": 3})
    assert missing.status == 400 and "payload_url" in missing.json["msg"]
    bad = realm.member.post("/bots", {"full_name": "W", "short_name": "w", "bot_type": 3,
                                      "payload_url": "ftp://example.com"})
    assert "Invalid outgoing webhook URL" in bad.json["msg"]
    assert realm.member.post("/bots", {"full_name": "W", "short_name": "w",
                                       "bot_type": 9}).json["msg"] == "Invalid bot type"
    generic = realm.member.post("/bots", {"full_name": "Plain", "short_name": "plain"})
    assert generic.ok and generic.json["api_key"]
    [listed] = realm.member.get("/bots").json["bots"]
    assert listed["bot_type"] == 1 and listed["services"] == []
    assert realm.owner.get("/bots").json["bots"] == []
