"""POST /register, GET /events, DELETE /events, and the fan-out's guarantees."""
from __future__ import annotations

import threading
import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from pynamodb.exceptions import TransactWriteError

from chalicelib.events.fanout import deliver, handle_stream_batch
from chalicelib.events.outbox import add_event
from chalicelib.events.queues import access_queue, append_events, create_queue
from chalicelib.events.reader import get_events
from chalicelib.http.auth import Principal
from chalicelib.models.base import transaction
from chalicelib.models.events import EventQueue
from chalicelib.models.realms import UniqueName


def register(account, **params):
    response = account.post("/register", params)
    assert response.ok, response.json
    return response.json


def poll(account, queue_id, last_event_id=-1):
    response = account.get("/events", {"queue_id": queue_id, "last_event_id": last_event_id,
                                       "dont_block": True})
    assert response.ok, response.json
    return response.json["events"]


def principal(account) -> Principal:
    return Principal(account.realm_id, account.user_id, account.email, account.role, False)


def test_register_returns_limits_and_initial_state(realm):
    body = register(realm.member, event_types=["realm_user", "realm", "user_settings",
                                               "alert_words", "message", "subscription"],
                    client_capabilities={"user_settings_object": True})
    for field in ("queue_id", "last_event_id", "max_message_length", "max_topic_length",
                  "max_stream_name_length", "max_stream_description_length",
                  "server_typing_started_wait_period_milliseconds",
                  "server_typing_stopped_wait_period_milliseconds",
                  "server_typing_started_expiry_period_milliseconds",
                  "event_queue_longpoll_timeout_seconds", "service_feature_level",
                  "service_version", "realm_users", "user_settings", "alert_words",
                  "max_message_id", "subscriptions", "realm_allow_message_editing",
                  "realm_empty_topic_display_name", "realm_topics_policy",
                  "realm_can_access_all_users_group", "realm_name"):
        assert field in body, field
    assert body["last_event_id"] == -1
    assert body["event_queue_longpoll_timeout_seconds"] > 20
    assert {u["user_id"] for u in body["realm_users"]} >= {realm.owner.user_id,
                                                           realm.member.user_id}
    assert body["user_settings"]["receives_typing_notifications"] is True


def test_register_without_settings_object_gets_legacy_fields(realm):
    body = register(realm.member, event_types=["user_settings"])
    assert "user_settings" not in body and body["twenty_four_hour_time"] is False


def test_event_reaches_queues_of_its_audience(realm, drain_events):
    # GIVEN a registered member
    queue = register(realm.member, event_types=["realm_user"])["queue_id"]
    other = register(realm.owner, event_types=["message"])["queue_id"]
    # WHEN a user is created (a realm-wide realm_user add event) and the stream is drained
    new_user = realm.add_user("Nina New")
    drain_events()
    # THEN the member's queue has it, with an id; the message-only queue does not
    events = poll(realm.member, queue)
    assert [(e["type"], e["op"], e["person"]["user_id"]) for e in events] == [
        ("realm_user", "add", new_user.user_id)]
    assert events[0]["id"] == 0
    assert poll(realm.owner, other) == []


def test_acknowledged_events_are_pruned_and_ids_increase(realm, drain_events):
    queue_id = register(realm.member, event_types=["realm_user"])["queue_id"]
    for name in ("Ann One", "Bob Two", "Cy Three"):
        realm.add_user(name)
    drain_events()
    events = poll(realm.member, queue_id)
    ids = [e["id"] for e in events]
    assert ids == sorted(set(ids)) and len(ids) == 3
    assert poll(realm.member, queue_id, ids[1]) == events[2:]
    # Acknowledging everything leaves nothing stored behind.
    assert poll(realm.member, queue_id, ids[2]) == []
    from chalicelib.models.events import QueueEvent
    stored = [e.sk for e in QueueEvent.query(queue_id) if e.sk.startswith("e#")]
    assert stored == []


def test_bad_queue_ids(realm):
    unknown = realm.member.get("/events", {"queue_id": "nope", "dont_block": True})
    assert unknown.status == 400 and unknown.json["code"] == "BAD_EVENT_QUEUE_ID"
    assert unknown.json["queue_id"] == "nope"
    queue_id = register(realm.member)["queue_id"]
    foreign = realm.owner.get("/events", {"queue_id": queue_id, "dont_block": True})
    assert foreign.json["code"] == "BAD_EVENT_QUEUE_ID"
    # An idle queue expires (TTL is lazy, so expiry is checked on read).
    EventQueue(queue_id).update(actions=[EventQueue.expires_at.set(
        datetime.now(timezone.utc) - timedelta(seconds=1))])
    expired = realm.member.get("/events", {"queue_id": queue_id, "dont_block": True})
    assert expired.json["code"] == "BAD_EVENT_QUEUE_ID"


def test_delete_queue(realm):
    queue_id = register(realm.member)["queue_id"]
    assert realm.member.delete("/events", {"queue_id": queue_id}).ok
    assert realm.member.get("/events", {"queue_id": queue_id}).json["code"] == \
        "BAD_EVENT_QUEUE_ID"


def test_blocking_poll_returns_a_heartbeat(realm, monkeypatch):
    monkeypatch.setenv("LONGPOLL_WAIT_SECONDS", "0.3")
    queue_id = register(realm.member)["queue_id"]
    response = realm.member.get("/events", {"queue_id": queue_id, "last_event_id": -1})
    assert response.ok and [e["type"] for e in response.json["events"]] == ["heartbeat"]
    heartbeat_id = response.json["events"][0]["id"]
    again = realm.member.get("/events", {"queue_id": queue_id, "last_event_id": heartbeat_id})
    assert again.json["events"][0]["id"] > heartbeat_id


def test_get_events_with_registration_parameters_registers(realm):
    response = realm.member.get("/events", {"event_types": ["realm_user"]})
    assert response.ok and response.json["queue_id"] and response.json["events"] == []


def test_redelivered_batch_is_not_appended_twice(realm, drain_events):
    queue_id = register(realm.member, event_types=["realm_user"])["queue_id"]
    realm.add_user("Dee Dup")
    records = drain_events.read()
    assert handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    assert handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    assert len(poll(realm.member, queue_id)) == 1


def test_events_of_a_cancelled_transaction_are_never_delivered(realm, drain_events):
    queue_id = register(realm.member, event_types=["custom"])["queue_id"]
    with pytest.raises(TransactWriteError):
        with transaction() as tx:
            add_event(tx, realm.realm_id, {"type": "custom", "note": "never"},
                      {"users": [realm.member.user_id]})
            # A claim that already exists: the whole transaction is cancelled.
            tx.save(UniqueName(f"realm:{realm.realm_id}", f"email:{realm.owner.email}",
                               target_id=1), condition=UniqueName.name.does_not_exist())
    drain_events()
    assert poll(realm.member, queue_id) == []


def test_poison_record_does_not_block_later_records(realm, drain_events):
    queue_id = register(realm.member, event_types=["realm_user"])["queue_id"]
    realm.add_user("Pre Poison")
    realm.add_user("Post Poison")
    records = drain_events.read()
    inserts = [r for r in records if r["eventName"] == "INSERT" and "event" in r["dynamodb"].get(
        "NewImage", {})]
    poison = {**inserts[0], "dynamodb": {**inserts[0]["dynamodb"], "SequenceNumber": "1",
                                         "NewImage": {**inserts[0]["dynamodb"]["NewImage"],
                                                      "event": {"S": "{not json"}}}}
    result = handle_stream_batch({"Records": [poison, *records]})
    assert result == {"batchItemFailures": [{"itemIdentifier": "1"}]}
    assert [e["person"]["full_name"] for e in poll(realm.member, queue_id)] == [
        "Pre Poison", "Post Poison"]


def test_access_queue_checks_owner(realm):
    queue_id = register(realm.member)["queue_id"]
    assert access_queue(realm.realm_id, realm.member.user_id, queue_id).queue_id == queue_id
    with pytest.raises(Exception):
        access_queue(realm.realm_id, realm.owner.user_id, queue_id)
    assert uuid.UUID(queue_id)


def test_concurrent_appends_lose_and_duplicate_nothing(aws):
    # GIVEN one queue, 8 writer threads appending 1,000 events, one reader acknowledging
    # as it goes (no chalice test client here: its environment patching is per call)
    realm_id, user_id = 10**6, 1
    caller = Principal(realm_id, user_id, "reader@example.com", 400, False)
    queue_id = create_queue(realm_id, user_id, {"event_types": ["custom"]}).queue_id
    writers, per_writer = 8, 125
    total = writers * per_writer
    received: list[dict] = []
    done = threading.Event()
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            queue = EventQueue.get(queue_id)
            for n in range(per_writer):
                append_events(queue, [(f"w{worker}-{n}", {"type": "custom", "seq": [worker, n]})])
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    def read() -> None:
        last = -1
        try:
            while last < total - 1 and not errors:
                events = get_events(caller, queue_id, last, True)["events"]
                for event in events:
                    assert event["id"] > last, "ids must strictly increase"
                    last = event["id"]
                    received.append(event)
                if not events:
                    time.sleep(0.01)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    reader = threading.Thread(target=read)
    reader.start()
    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    reader.join(timeout=120)
    assert errors == [] and not reader.is_alive()
    # THEN every event arrived exactly once, with consecutive increasing ids
    seqs = [tuple(e["seq"]) for e in received]
    assert len(seqs) == total == len(set(seqs))
    assert [e["id"] for e in received] == list(range(total))
    # AND each writer's events kept their order
    for worker in range(writers):
        assert [n for w, n in seqs if w == worker] == list(range(per_writer))
