"""Injected AWS faults: every request succeeds whole or answers a clean error.

While a workload of sends (some waking an outgoing-webhook bot), edits, moves,
subscriptions, registrations, uploads and invitations runs over HTTP, a fraction of the
app's AWS calls fail as AWS fails them once botocore's retries gave up (botocore event
hooks, tests/functional/aws_hooks.py): DynamoDB ThrottlingException,
ProvisionedThroughputExceededException, InternalServerError, transactions cancelled for
throttling; SQS, SES and S3 errors. The outbox stream is fed to the fan-out through its
Lambda handler with the same faults, retried as Lambda retries a stream batch (from the
first failed record on). Then, without faults, the test checks: no 5xx; throttling
answered 503 with a retry hint; what answered 200 is stored once and what answered an
error is not stored, or is finished by the same request again (moves, subscriptions);
every queue got each event exactly once; every webhook job was delivered or dead-lettered.
"""
from __future__ import annotations

import json
import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from app import app
from infra.local.pollers import LambdaContext
from tests.functional.aws_hooks import error_response, hooked
from tests.functional.conftest import ApiResponse
from tests.functional.edit_helpers import channel
from tests.functional.webhook_helpers import make_bot

DYNAMODB_FAULTS = [
    ("ThrottlingException", 400), ("ProvisionedThroughputExceededException", 400),
    ("InternalServerError", 500)]
OTHER_FAULTS = {"sqs": ("RequestThrottled", 403), "ses": ("Throttling", 400),
                "s3": ("SlowDown", 503)}
MAX_STREAM_ATTEMPTS = 200
REQUEST_FAULT_RATE = 0.05   # of a request's DynamoDB calls: about half the requests fail
FANOUT_FAULT_RATE = 0.12


@dataclass
class Faults:
    """Fails a fraction of the app's AWS calls while enabled; counts what it did."""

    rate: float                  # of DynamoDB calls; SQS, SES and S3 calls fail more often
    rng: random.Random
    enabled: bool = False
    injected: Counter[str] = field(default_factory=Counter)
    calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, service: str, operation: str, params: dict[str, Any]) -> Any:
        if not self.enabled or service == "dynamodbstreams":
            return None
        with self.lock:
            self.calls += 1
            rate = self.rate if service == "dynamodb" else min(1.0, self.rate * 6)
            if self.rng.random() >= rate:
                return None
            if service == "dynamodb" and operation == "TransactWriteItems" and \
                    self.rng.random() < 0.5:
                self.injected["TransactionCanceledException(ThrottlingError)"] += 1
                items = json.loads(params["body"])["TransactItems"]
                reasons = [{"Code": "ThrottlingError", "Message": "Throttled"}] + [
                    {"Code": "None"}] * (len(items) - 1)
                return error_response(service, "TransactionCanceledException",
                                      "Transaction cancelled [ThrottlingError]",
                                      CancellationReasons=reasons)
            code, status = (self.rng.choice(DYNAMODB_FAULTS) if service == "dynamodb"
                            else OTHER_FAULTS.get(service, ("InternalError", 500)))
            self.injected[f"{service}:{code}"] += 1
            return error_response(service, code, "injected fault", status)


@dataclass
class Outcome:
    kind: str
    response: ApiResponse
    detail: dict[str, Any] = field(default_factory=dict)


class Workload:
    """The requests of the run and what each answered."""

    def __init__(self, realm, faults: Faults, rng: random.Random) -> None:
        self.realm, self.faults, self.rng = realm, faults, rng
        self.outcomes: list[Outcome] = []
        self.topic = "plans"
        self.counter = 0

    def call(self, kind: str, account, method: str, path: str, params: dict[str, Any],
             **detail: Any) -> Outcome:
        self.faults.enabled = True
        try:
            response = account.call(method, path, params)
        finally:
            self.faults.enabled = False
        outcome = Outcome(kind, response, detail)
        self.outcomes.append(outcome)
        return outcome

    def unique(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter}"

    def send(self, mention_bot: bool = False) -> Outcome:
        sender = self.rng.choice([self.realm.member, self.realm.owner])
        content = self.unique("send") + (" @**Echo Bot** ping" if mention_bot else "")
        return self.call("send", sender, "POST", "/messages", {
            "type": "stream", "to": "talk", "topic": self.topic, "content": content},
            content=content, sender=sender.user_id)

    def direct(self) -> Outcome:
        content = self.unique("direct")
        return self.call("direct", self.realm.member, "POST", "/messages", {
            "type": "direct", "to": [self.realm.owner.user_id], "content": content},
            content=content)

    def edit(self, message_id: int, sender) -> Outcome:
        content = self.unique("edited")
        return self.call("edit", sender, "PATCH", f"/messages/{message_id}",
                         {"content": content}, content=content, message_id=message_id)

    def move(self, message_id: int) -> Outcome:
        new_topic = self.unique("topic")
        params = {"topic": new_topic, "propagate_mode": "change_all",
                  "send_notification_to_old_thread": False,
                  "send_notification_to_new_thread": False}
        outcome = self.call("move", self.realm.owner, "PATCH", f"/messages/{message_id}",
                            params)
        if outcome.response.status != 200:   # the same request again finishes the move
            retry = self.realm.owner.patch(f"/messages/{message_id}", params)
            assert retry.ok, (outcome.response.json, retry.json)
        self.topic = new_topic
        return outcome

    def subscribe(self) -> Outcome:
        name = self.unique("room")
        params = {"subscriptions": [{"name": name}],
                  "principals": [self.realm.member.user_id, self.realm.owner.user_id]}
        outcome = self.call("subscribe", self.realm.owner, "POST", "/users/me/subscriptions",
                            params, name=name)
        if outcome.response.status != 200:
            retry = self.realm.owner.post("/users/me/subscriptions", params)
            assert retry.ok, (outcome.response.json, retry.json)
        return outcome

    def register(self) -> Outcome:
        return self.call("register", self.realm.member, "POST", "/register",
                         {"event_types": ["message"]})

    def upload(self) -> Outcome:
        data = self.unique("file").encode()
        self.faults.enabled = True
        try:
            response = self.realm.member.upload([("file", "f.txt", data)])
        finally:
            self.faults.enabled = False
        outcome = Outcome("upload", response, {"data": data})
        self.outcomes.append(outcome)
        return outcome

    def invite(self) -> Outcome:
        email = f"{self.unique('guest')}@{self.realm.subdomain}.example.com"
        return self.call("invite", self.realm.owner, "POST", "/invites",
                         {"invitee_emails": email, "stream_ids": []}, email=email)

    def succeeded(self, kind: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.kind == kind and o.response.status == 200]

    def failed(self, kind: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.kind == kind and o.response.status != 200]


def feed_stream(drain, faults: Faults) -> int:
    """Delivers the outbox stream to the fan-out's Lambda handler with faults on, as
    Lambda does with ReportBatchItemFailures: a batch is retried from its first failed
    record on, and whole when the function fails (powertools raises when every record
    of a batch failed). Returns the handler invocations."""
    pending = drain.read()
    invocations = 0
    while pending:
        batch, pending = pending[:100], pending[100:]
        while batch:
            invocations += 1
            assert invocations < MAX_STREAM_ATTEMPTS, "the fan-out never got through"
            faults.enabled, faults.rate = True, FANOUT_FAULT_RATE
            try:
                # The Lambda handler itself (the test client's invoke would apply the
                # dev stage's TABLE_PREFIX to its environment).
                result = app.handler_map["fanout"]({"Records": batch},
                                                   LambdaContext("fanout"))
            except Exception:  # noqa: BLE001 - a function error: Lambda retries it all
                continue
            finally:
                faults.enabled, faults.rate = False, REQUEST_FAULT_RATE
            failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
            first = next((i for i, r in enumerate(batch)
                          if r["dynamodb"]["SequenceNumber"] in failed), None)
            batch = [] if first is None else batch[first:]
    return invocations


@pytest.fixture
def faults(_outbox_drain):
    injector = Faults(rate=REQUEST_FAULT_RATE, rng=random.Random(1515))
    with hooked(injector):
        yield injector


def test_faults_leave_no_half_written_state(realm, drain_events, faults,
                                            register_queue, fetch_events, receiver,
                                            webhooks, capsys):
    # GIVEN a channel, an outgoing-webhook bot in it, and queues reading every event
    channel(realm.owner, "talk", [realm.owner, realm.member])
    bot = make_bot(realm.owner, receiver.url)
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "talk"}], "principals": [bot["user_id"]]}).ok
    queues = {account.user_id: (account, register_queue(account)["queue_id"])
              for account in (realm.owner, realm.member)}
    drain_events()
    rng = random.Random(15)
    work = Workload(realm, faults, rng)
    invocations = 0

    # WHEN the workload runs with faults injected, the stream fed now and then
    for step in range(70):
        choice = rng.random()
        sent = work.succeeded("send")
        if choice < 0.35:
            work.send(mention_bot=rng.random() < 0.3)
        elif choice < 0.45:
            work.direct()
        elif choice < 0.6 and sent:
            target = rng.choice(sent)
            account = realm.member if target.detail["sender"] == realm.member.user_id \
                else realm.owner
            work.edit(target.response.json["id"], account)
        elif choice < 0.67 and sent:
            work.move(sent[-1].response.json["id"])
        elif choice < 0.77:
            work.subscribe()
        elif choice < 0.85:
            work.register()
        elif choice < 0.93:
            work.upload()
        else:
            work.invite()
        if step % 10 == 9:
            invocations += feed_stream(drain_events, faults)
    invocations += feed_stream(drain_events, faults)

    # THEN no request answered a 5xx other than 503 with a retry hint
    statuses = Counter(o.response.status for o in work.outcomes)
    for outcome in work.outcomes:
        body = outcome.response.json
        assert outcome.response.status in (200, 400, 503), (outcome.kind, body)
        if outcome.response.status == 503:
            assert body["code"] == "RATE_LIMIT_HIT" and body["retry-after"] >= 1, body
            assert outcome.response.headers["Retry-After"] == str(body["retry-after"])
        if outcome.response.status == 400:   # only what this workload can get wrong
            assert body["code"] in ("INVITATION_FAILED",), (outcome.kind, body)
    assert statuses[200] and statuses[503], statuses
    # every kind of fault of the services called hundreds of times happened (S3 and SES
    # are called a few times a run: whether one of theirs is hit is up to the draw)
    assert {f"dynamodb:{code}" for code, _ in DYNAMODB_FAULTS} | {"sqs:RequestThrottled"} \
        <= set(faults.injected), faults.injected

    # ...what was acknowledged is stored once, what failed is not stored
    channel_messages = all_messages(realm.owner, [{"operator": "channel", "operand": "talk"}])
    contents = Counter(m["content"] for m in channel_messages)
    edited = {o.detail["message_id"]: o.detail["content"] for o in work.succeeded("edit")}
    for outcome in work.succeeded("send"):
        message_id = outcome.response.json["id"]
        [stored] = [m for m in channel_messages if m["id"] == message_id]
        assert stored["content"] == edited.get(message_id, outcome.detail["content"])
        assert stored["subject"] == work.topic   # every move finished
    for outcome in work.failed("send") + work.failed("direct"):
        assert outcome.detail["content"] not in contents
    directs = Counter(m["content"] for m in all_messages(realm.owner, [
        {"operator": "dm", "operand": [realm.member.user_id]}]))
    assert all(directs[o.detail["content"]] == 1 for o in work.succeeded("direct"))
    assert not any(o.detail["content"] in directs for o in work.failed("direct"))
    for outcome in work.failed("edit"):
        assert outcome.detail["content"] not in contents
    subscribed = {s["name"] for s in realm.member.get("/users/me/subscriptions").json[
        "subscriptions"]}
    assert {o.detail["name"] for o in work.outcomes if o.kind == "subscribe"} <= subscribed
    for outcome in work.succeeded("register"):
        assert realm.member.get("/events", {"queue_id": outcome.response.json["queue_id"],
                                            "dont_block": True}).ok
    for outcome in work.succeeded("upload"):
        path = outcome.response.json["uri"].removeprefix("/user_uploads/")
        assert realm.member.get(f"/user_uploads/{path}").status in (200, 302, 307)
    invited = {i["email"] for i in realm.owner.get("/invites").json["invites"]}
    assert {o.detail["email"] for o in work.succeeded("invite")} <= invited

    # ...every queue got each event once: a message event per stored message it may see
    lost = duplicated = 0
    for account, queue_id in queues.values():
        events = fetch_events(account, queue_id)
        # Two events alike are one delivered twice (invites_changed carries nothing:
        # one per invitation, all alike)
        shapes = Counter(repr(sorted((k, repr(v)) for k, v in e.items() if k != "id"))
                         for e in events if e["type"] != "invites_changed")
        duplicated += sum(n - 1 for n in shapes.values())
        seen = Counter(e["message"]["id"] for e in events if e["type"] == "message")
        visible = {m["id"] for m in channel_messages} | {
            m["id"] for m in all_messages(account, [{"operator": "is", "operand": "dm"}])}
        lost += len(visible - set(seen))
        duplicated += sum(n - 1 for n in seen.values())
        assert set(seen) <= visible, "an event for a message that was not stored"
        updates = Counter((e["message_id"], e["content"]) for e in events
                          if e["type"] == "update_message" and "content" in e)
        assert set(updates) == {(o.detail["message_id"], o.detail["content"])
                                for o in work.succeeded("edit")
                                if o.detail["message_id"] in seen}
    assert (lost, duplicated) == (0, 0)

    # ...and every webhook job ended delivered once or in the dead-letter queue
    webhooks.run()
    delivered = Counter(p["message"]["id"] for p in receiver.payloads)
    dead = {job.get("message", {}).get("id") for job in webhooks.dead_letters()}
    for outcome in work.succeeded("send"):
        if "@**Echo Bot**" in outcome.detail["content"]:
            message_id = outcome.response.json["id"]
            assert delivered[message_id] == 1 or message_id in dead, message_id
    assert all(n == 1 for n in delivered.values())

    with capsys.disabled():
        print(f"\nfault injection: {len(work.outcomes)} requests, {faults.calls} AWS calls "
              f"under faults, {sum(faults.injected.values())} injected "
              f"({dict(faults.injected)}); answers {dict(statuses)}; 5xx other than 503: "
              f"{sum(n for s, n in statuses.items() if s >= 500 and s != 503)}; fan-out "
              f"invocations {invocations}; events lost {lost}, duplicated {duplicated}")


def all_messages(account, narrow: list[dict[str, Any]]) -> list[dict[str, Any]]:
    response = account.get("/messages", {"anchor": "newest", "num_before": 1000,
                                         "num_after": 0, "narrow": narrow,
                                         "apply_markdown": False})
    assert response.ok, response.json
    return response.json["messages"]
