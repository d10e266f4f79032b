"""Missed-message email and push: AWS requests and DynamoDB units per notified message,
SES/SNS calls per email and push, and the cost of 1,000 missed-message emails.

Run: .venv/bin/python -m bench.notifications
On in-process moto: the fan-out of each direct message, then the notifier's jobs (the
delayed ones made due, the clock moved past the batching period).
"""
from __future__ import annotations

import base64
import collections
import json
import os
import threading
import time
from typing import Any

from bench.common import RequestCounter, bench_realm, moto_backend
from bench.prices import (
    DYNAMODB_PER_READ_UNIT,
    DYNAMODB_PER_WRITE_UNIT,
    LAMBDA_PER_REQUEST,
    SQS_PER_REQUEST,
    Bill,
)

SES_PER_EMAIL = 0.10 / 1000
SNS_MOBILE_PER_PUSH = 0.50 / 1e6
NOTIFIER_MEMORY_MB = 256
NOTIFIER_SECONDS = 0.15       # assumed per email job on Lambda (arm64, warm)


class Clock:
    now = time.time()


def main() -> None:
    counter = RequestCounter()
    counter.install()
    clock = Clock()
    with moto_backend():
        import boto3
        from chalice.test import Client
        from moto.core import DEFAULT_ACCOUNT_ID
        from moto.sqs.models import sqs_backends

        from app import app
        from chalicelib import config
        from chalicelib.actions.users.users import NewUser, do_create_user
        from chalicelib.notifications.notifier import handle_notifier_batch
        from chalicelib.rules import presence_rules as presence
        from infra.local.pollers import SqsPoller
        from infra.local.stream_drain import OutboxDrain

        presence.now = lambda: clock.now  # type: ignore[assignment]
        boto3.client("ses").verify_email_identity(EmailAddress="noreply@localhost")
        sns = boto3.client("sns")
        os.environ["SNS_FCM_PLATFORM_ARN"] = sns.create_platform_application(
            Name="bench", Platform="GCM", Attributes={"PlatformCredential": "k"})[
            "PlatformApplicationArn"]
        realm, _owner, owner_key = bench_realm()
        reader, reader_key = do_create_user(realm.realm_id, NewUser(
            email="away@bench.example.com", full_name="Away Reader"))
        drain = OutboxDrain()
        poller = SqsPoller(handle_notifier_batch, "notifier", config.notification_queue_name(),
                           threading.Event())
        queue = sqs_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].get_queue(
            config.notification_queue_name())

        def auth(email: str, key: str) -> dict[str, str]:
            return {"Authorization": "Basic " + base64.b64encode(
                f"{email}:{key}".encode()).decode(),
                "Content-Type": "application/x-www-form-urlencoded"}

        sender = auth("o@bench.example.com", owner_key)
        away = auth("away@bench.example.com", reader_key)

        def run_jobs(make_due: bool = True) -> None:
            """The jobs in the queue; `make_due`: the delayed ones too (the clock has been
            moved past their period)."""
            for _ in range(5):
                for message in queue._messages if make_due else ():
                    message.delayed_until = 0
                if not poller.poll_once():
                    return

        with Client(app) as client:
            def dm(n: int) -> None:
                body = f"type=direct&to=[{reader.user_id}]&content=message+{n}".encode()
                assert client.http.post("/api/v1/messages", headers=sender,
                                        body=body).status_code == 200

            drain()
            print("per direct message to an away user (email on, no phone):")
            for label, phone in (("email only", False), ("email + push (1 phone)", True)):
                if phone:
                    assert client.http.post("/api/v1/users/me/android_gcm_reg_id",
                                            headers=away, body=b"token=bench-phone"
                                            ).status_code == 200
                for size in (1, 10):
                    drain()
                    clock.now += 200
                    run_jobs()
                    clock.now += 200
                    # The fan-out of `size` messages in one period, then the period's end.
                    for n in range(size):
                        dm(n)
                    fanout = _measure(counter, drain)
                    # The decide job and the pushes it sends have no delay: they run now;
                    # the email's wake-up waits for the period's end.
                    pushes = _measure(counter, lambda: run_jobs(make_due=False))
                    clock.now += 121
                    email = _measure(counter, run_jobs)
                    clock.now += 1
                    _report(f"{label}, {size} message(s) in one period", size, fanout,
                            pushes, email)
                    if (phone, size) == (False, 1):
                        worst = (fanout, pushes, email)
            _channel_message(client, sender, realm.realm_id, counter, drain,
                             lambda: run_jobs(make_due=False))
            _cost(*worst)


def _channel_message(client: Any, sender: dict[str, str], realm_id: int,
                     counter: RequestCounter, drain: Any, due_jobs: Any) -> None:
    """A channel message nobody is notified of (no mention, channel email off): the
    fan-out hands it over in one job; the notifier's decide job still reads each
    recipient's settings and topic policy, and nobody's presence."""
    from chalicelib.actions.users.users import NewUser, do_create_user

    ids = [do_create_user(realm_id, NewUser(email=f"c{n}@bench.example.com",
                                            full_name=f"Channel {n}"))[0].user_id
           for n in range(50)]
    body = f'subscriptions=[{{"name":"big"}}]&principals={json.dumps(ids)}'.encode()
    assert client.http.post("/api/v1/users/me/subscriptions", headers=sender,
                            body=body).status_code == 200
    drain()
    for label, push_on in (("push configured", True), ("push not configured", False)):
        if not push_on:
            os.environ.pop("SNS_FCM_PLATFORM_ARN")
        assert client.http.post("/api/v1/messages", headers=sender,
                                body=b"type=stream&to=big&topic=t&content=hi").status_code \
            == 200
        step = _measure(counter, drain)
        decide = _measure(counter, due_jobs)
        notification = {(t, k): v for (t, k), v in step["units"].items()
                        if t in NOTIFICATION_TABLES}
        print(f"\nchannel message to 51 subscribers, nobody notified ({label}):")
        print(f"  fan-out, notification tables: {notification}")
        print(f"  whole fan-out: {_summary(step)}")
        print(f"  decide job:    {_summary(decide)}")


def _measure(counter: RequestCounter, action: Any) -> dict[str, Any]:
    calls, units = counter.calls.copy(), counter.by_table.copy()
    action()
    return {"calls": counter.calls - calls, "units": counter.by_table - units}


def _summary(step: dict[str, Any], tables: tuple[str, ...] | None = None) -> str:
    dynamodb = {op: n for (svc, op), n in step["calls"].items() if svc == "dynamodb"}
    others = {f"{svc}:{op}": n for (svc, op), n in step["calls"].items() if svc != "dynamodb"}
    writes = sum(u for (t, k), u in step["units"].items() if k == "write"
                 and (tables is None or t in tables))
    reads = sum(u for (t, k), u in step["units"].items() if k == "read"
                and (tables is None or t in tables))
    return (f"DynamoDB {sum(dynamodb.values())} requests {dict(dynamodb)}; WRU {writes:g}, "
            f"RRU {reads:g}; {others}")


NOTIFICATION_TABLES = ("notifications", "presence", "users", "user_topics")


def _report(label: str, size: int, fanout: dict[str, Any], pushes: dict[str, Any],
            email: dict[str, Any]) -> None:
    print(f"\n  {label}")
    print(f"    fan-out, notification tables only ({', '.join(NOTIFICATION_TABLES)}):")
    units = collections.Counter({k: v for k, v in fanout["units"].items()
                                 if k[0] in NOTIFICATION_TABLES})
    print(f"      units {dict(units)}")
    print(f"      whole fan-out: {_summary(fanout)}")
    print(f"    jobs at once (decide, push):  {_summary(pushes)}")
    print(f"    email job:  {_summary(email)}")
    sent = sum(n for (svc, op), n in email["calls"].items() if svc == "ses")
    print(f"    SES calls: {sent} for {size} message(s)")
    totals: collections.Counter[str] = collections.Counter()
    for step in (pushes, email):
        for (_table, kind), value in step["units"].items():
            totals[kind] += value
    for (_table, kind), value in units.items():
        totals[kind] += value
    print(f"    per notified message (notification tables + notifier): "
          f"WRU {totals['write'] / size:.2f}, RRU {totals['read'] / size:.2f}")


def _cost(fanout: dict[str, Any], decided: dict[str, Any], email: dict[str, Any]) -> None:
    """One email per period with one message (the worst case), from the measured run:
    the fan-out's notification writes and reads, the decide job's and the email job's."""
    units: collections.Counter[str] = collections.Counter()
    for (table, kind), value in fanout["units"].items():
        if table in NOTIFICATION_TABLES:
            units[kind] += value
    for step in (decided, email):
        for (_table, kind), value in step["units"].items():
            units[kind] += value
    bill = Bill()
    emails = 1000
    bill.add("SES emails", emails, SES_PER_EMAIL, "emails")
    bill.add("DynamoDB write units", emails * units["write"], DYNAMODB_PER_WRITE_UNIT, "WRU")
    bill.add("DynamoDB read units", emails * units["read"], DYNAMODB_PER_READ_UNIT, "RRU")
    # The decide job and the wake-up: each sent (one SendMessageBatch per batch),
    # received, deleted; each a notifier invocation.
    bill.add("SQS requests", emails * 6, SQS_PER_REQUEST, "requests")
    bill.add("Lambda requests", emails * 2, LAMBDA_PER_REQUEST, "invocations")
    bill.lambda_time("Lambda notifier time", emails * 2 * NOTIFIER_SECONDS,
                     NOTIFIER_MEMORY_MB, "arm64")
    print("\ncost of 1,000 missed-message emails (one message each, list prices):")
    bill.print()
    print(json.dumps({"per_email_usd": round(bill.total / emails, 7)}))
    print(f"push: SNS mobile publishes ${SNS_MOBILE_PER_PUSH * 1e6:.2f} per million "
          "(one per phone per message), plus the push job's reads above")


if __name__ == "__main__":
    main()
