"""The application's CloudWatch metrics (chalicelib/aws/metrics.py) through the real paths:
powertools prints each EMF document as a JSON line on stdout, read here with capsys."""
from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chalicelib.api import users as users_api
from chalicelib.aws import metrics
from chalicelib.fanout.batch import handle_stream_batch
from tests.functional.conftest import stream_record
from tests.functional.edit_helpers import channel, send
from tests.functional.webhook_helpers import make_bot


def emitted(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    """Every metric printed since the last read: name, value, unit and dimensions."""
    found = []
    for line in capsys.readouterr().out.splitlines():
        if not line.startswith("{") or '"_aws"' not in line:
            continue
        document = json.loads(line)
        [directive] = document["_aws"]["CloudWatchMetrics"]
        assert directive["Namespace"] == "teamchat-test"
        [dimension_names] = directive["Dimensions"]
        dimensions = {name: document[name] for name in dimension_names}
        for metric in directive["Metrics"]:
            values = document[metric["Name"]]
            for value in values if isinstance(values, list) else [values]:
                found.append({"name": metric["Name"], "value": value, "unit": metric["Unit"],
                              "dimensions": dimensions})
    return found


def named(found: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [m for m in found if m["name"] == name]


def test_each_message_sent_is_counted_by_kind(realm, capsys):
    # GIVEN a channel
    channel(realm.owner, "metrics", [realm.owner, realm.member])
    capsys.readouterr()
    # WHEN two channel messages and one direct message are sent
    send(realm.owner, "metrics", "t", "one")
    send(realm.member, "metrics", "t", "two")
    direct = realm.owner.post("/messages", {"type": "direct", "to": [realm.member.user_id],
                                            "content": "psst"})
    assert direct.ok, direct.json
    # THEN each is one MessagesSent, by kind
    sent = named(emitted(capsys), metrics.MESSAGES_SENT)
    assert [(m["value"], m["unit"], m["dimensions"]) for m in sent] == [
        (1.0, "Count", {"type": "channel"}), (1.0, "Count", {"type": "channel"}),
        (1.0, "Count", {"type": "direct"})]
    # AND a refused send counts nothing
    refused = realm.owner.post("/messages", {"type": "stream", "to": "no such channel",
                                             "topic": "t", "content": "x"})
    assert not refused.ok
    assert named(emitted(capsys), metrics.MESSAGES_SENT) == []


def test_the_fanout_counts_events_delivered_and_its_delay(realm, drain_events,
                                                            register_queue, capsys):
    # GIVEN two users with an event queue each, and a message to both
    channel(realm.owner, "fanned", [realm.owner, realm.member])
    register_queue(realm.owner, event_types=["message"])
    register_queue(realm.member, event_types=["message"])
    drain_events()
    send(realm.owner, "fanned", "t", "to both queues")
    capsys.readouterr()
    # WHEN the fan-out runs
    drain_events()
    # THEN it published, once per batch, the event items it appended and the age of the
    # batch's oldest record
    found = emitted(capsys)
    [delivered] = named(found, metrics.EVENTS_DELIVERED)
    assert delivered["value"] == 2.0 and delivered["unit"] == "Count"
    assert delivered["dimensions"] == {"service": "teamchat"}
    [delay] = named(found, metrics.FANOUT_DELAY)
    assert delay["unit"] == "Milliseconds"
    assert 0 <= delay["value"] < 60_000


@pytest.mark.handmade_events
def test_the_fanout_delay_is_the_oldest_records_age(realm, capsys):
    # GIVEN a batch whose records DynamoDB committed 5 s and 2 s ago
    from chalicelib.models.events import Outbox

    now = time.time()
    records = []
    for number, age in enumerate((2, 5)):
        item = Outbox(f"delay-{now}-{number}", realm_id=realm.realm_id,
                      event={"type": "custom"}, audience={"users": []}, created=0,
                      expires_at=datetime.now(UTC) + timedelta(hours=1))
        record = stream_record(item, 10**12 + number)
        record["dynamodb"]["ApproximateCreationDateTime"] = now - age
        records.append(record)
    capsys.readouterr()
    # WHEN the fan-out handles it
    assert handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    # THEN the delay is the older one's age, in milliseconds
    [delay] = named(emitted(capsys), metrics.FANOUT_DELAY)
    assert 5_000 <= delay["value"] < 65_000


def test_webhook_outcomes_are_counted_by_outcome(realm, receiver, webhooks, monkeypatch,
                                                 capsys):
    # GIVEN a bot whose receiver answers
    make_bot(realm.member, receiver.url)
    channel(realm.owner, "hooks", [realm.owner, realm.member])
    webhooks.run()
    capsys.readouterr()
    # WHEN one job is delivered and one answered with an error
    send(realm.owner, "hooks", "t", "@**Echo Bot** one")
    webhooks.run()
    receiver.answer({"msg": "boom"}, status=500)
    send(realm.owner, "hooks", "t", "@**Echo Bot** two")
    webhooks.run()
    # THEN one success and one failure
    outcomes = [m["dimensions"] for m in named(emitted(capsys), metrics.WEBHOOK_DELIVERIES)]
    assert outcomes == [{"outcome": "success"}, {"outcome": "failure"}]
    # WHEN a receiver cannot be reached: retried, then given up after the last attempt
    monkeypatch.setenv("WEBHOOK_RETRY_DELAYS_SECONDS", "0")
    make_bot(realm.member, "http://127.0.0.1:9/", short_name="down", full_name="Down Bot")
    send(realm.owner, "hooks", "t", "@**Down Bot** anyone?")
    for _ in range(4):
        webhooks.run()
    outcomes = [m["dimensions"]["outcome"]
                for m in named(emitted(capsys), metrics.WEBHOOK_DELIVERIES)]
    assert outcomes == ["retry", "retry", "retry", "failure"]


def test_5xx_answers_are_counted(realm, monkeypatch, capsys):
    # GIVEN a view that fails with a bug
    def broken(caller):
        raise RuntimeError("boom")

    monkeypatch.setattr(users_api.actions, "get_own_user_record", broken)
    capsys.readouterr()
    # WHEN it is called, THEN the answer is a 500 and it is counted
    answer = realm.member.get("/users/me")
    assert answer.status == 500 and answer.json["code"] == "INTERNAL_SERVER_ERROR"
    [error] = named(emitted(capsys), metrics.SERVER_ERRORS)
    assert (error["value"], error["dimensions"]) == (1.0, {"status": "500"})
    # AND a client's error is not
    monkeypatch.undo()
    assert realm.member.get("/messages/999999999").status == 400
    assert named(emitted(capsys), metrics.SERVER_ERRORS) == []


def test_metrics_disabled_prints_nothing(monkeypatch, capsys):
    """The local stack turns metrics off (POWERTOOLS_METRICS_DISABLED): its console shows
    progress, not an EMF blob per message sent."""
    from chalicelib.aws import metrics

    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    capsys.readouterr()
    metrics.count_message_sent("channel")
    assert capsys.readouterr().out == ""
