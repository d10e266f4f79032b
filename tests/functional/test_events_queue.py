"""POST /register, GET /events, DELETE /events, and the fan-out's guarantees."""
from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from pynamodb.exceptions import TransactWriteError

from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event
from chalicelib.delivery.queues import access_queue
from chalicelib.fanout.batch import handle_stream_batch
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
                  "realm_empty_topic_display_name", "realm_mandatory_topics",
                  "realm_can_access_all_users_group", "realm_name"):
        assert field in body, field
    assert body["last_event_id"] == -1
    assert body["event_queue_longpoll_timeout_seconds"] > 20
    assert {u["user_id"] for u in body["realm_users"]} >= {realm.owner.user_id,
                                                           realm.member.user_id}
    assert body["user_settings"]["receives_typing_notifications"] is True


def test_register_settings_state_follows_the_capability(realm):
    # GIVEN an old client (no user_settings_object) asking for the legacy types
    old = register(realm.member, event_types=["update_display_settings",
                                              "update_global_notifications"])
    # THEN the settings come as top-level fields, split like the legacy events
    assert "user_settings" not in old
    assert old["twenty_four_hour_time"] is False and old["enable_sounds"] is True
    assert "web_font_size_px" not in old    # newer settings exist only in the object
    # GIVEN a modern client asking for all three
    modern = register(realm.member, event_types=["user_settings", "update_display_settings",
                                                 "update_global_notifications"],
                      client_capabilities={"user_settings_object": True})
    # THEN exactly one copy: the object
    assert modern["user_settings"]["web_font_size_px"] == 16
    assert "twenty_four_hour_time" not in modern and "enable_sounds" not in modern


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


def test_the_drain_goes_on_after_its_stream_iterator_expired(realm, drain_events):
    from moto.dynamodbstreams.models import dynamodbstreams_backends

    queue = register(realm.member, event_types=["realm_user"])["queue_id"]
    first = realm.add_user("Ann Early")
    drain_events()
    # WHEN every shard iterator handed out so far has expired (15 minutes on AWS)
    for iterator in dynamodbstreams_backends["123456789012"]["us-east-1"] \
            .shard_iterators.values():
        iterator.handed_out -= 16 * 60
    later = realm.add_user("Bob Late")
    drain_events()
    # THEN the next drain still delivers, each event once
    assert [e["person"]["user_id"] for e in poll(realm.member, queue)] == [
        first.user_id, later.user_id]


def test_acknowledged_events_are_not_returned_again_and_ids_increase(realm, drain_events):
    queue_id = register(realm.member, event_types=["realm_user"])["queue_id"]
    for name in ("Ann One", "Bob Two", "Cy Three"):
        realm.add_user(name)
    drain_events()
    events = poll(realm.member, queue_id)
    ids = [e["id"] for e in events]
    assert ids == sorted(set(ids)) and len(ids) == 3
    assert poll(realm.member, queue_id, ids[1]) == events[2:]
    assert poll(realm.member, queue_id, ids[2]) == []
    # Acknowledged events are not deleted (a delete costs a write unit per event and
    # queue): the queue records the acknowledged id and the chunks expire by TTL.
    from chalicelib.delivery.append import EVENT_RETENTION
    from chalicelib.models.events import QueueEvent
    chunks = [c for c in QueueEvent.query(queue_id) if c.sk.startswith("e#")]
    assert chunks and all(c.expires_at <= datetime.now(UTC) + EVENT_RETENTION for c in chunks)


def test_appends_never_land_at_or_below_an_acknowledged_id(realm, drain_events):
    # GIVEN a client that read and acknowledged events whose chunks then expired
    from chalicelib.models.events import QueueEvent
    queue_id = register(realm.member, event_types=["realm_user"])["queue_id"]
    realm.add_user("Ann Before")
    drain_events()
    [seen] = poll(realm.member, queue_id)
    assert poll(realm.member, queue_id, seen["id"]) == []
    for chunk in QueueEvent.query(queue_id):
        chunk.delete()   # what TTL deletion does, eventually
    # WHEN a new event is appended
    realm.add_user("Bea After")
    drain_events()
    # THEN it gets an id above the acknowledged one, and the client receives it
    [after] = poll(realm.member, queue_id, seen["id"])
    assert after["person"]["full_name"] == "Bea After" and after["id"] > seen["id"]


def test_bad_queue_ids(realm):
    unknown = realm.member.get("/events", {"queue_id": "nope", "dont_block": True})
    assert unknown.status == 400 and unknown.json["code"] == "BAD_EVENT_QUEUE_ID"
    assert unknown.json["queue_id"] == "nope"
    queue_id = register(realm.member)["queue_id"]
    foreign = realm.owner.get("/events", {"queue_id": queue_id, "dont_block": True})
    assert foreign.json["code"] == "BAD_EVENT_QUEUE_ID"
    # An idle queue expires (TTL is lazy, so expiry is checked on read).
    EventQueue(queue_id).update(actions=[EventQueue.expires_at.set(
        datetime.now(UTC) - timedelta(seconds=1))])
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


def test_get_events_with_registration_parameters_registers_only_without_blocking(
        realm, drain_events):
    # WHEN no queue_id and dont_block THEN a queue is allocated from the parameters
    response = realm.member.get("/events", {"event_types": ["realm_user"],
                                            "dont_block": True})
    assert response.ok and response.json["queue_id"] and response.json["events"] == []
    # AND it is a working queue of those event types
    realm.add_user("Nia New")
    drain_events()
    events = realm.member.get("/events", {"queue_id": response.json["queue_id"],
                                          "last_event_id": -1, "dont_block": True}).json
    assert [e["type"] for e in events["events"]] == ["realm_user"]
    # WHEN no queue_id and blocking (the default) THEN refused, as the reference
    refused = realm.member.get("/events", {"event_types": ["realm_user"]})
    assert refused.status == 400 and refused.json["code"] == "BAD_REQUEST"


def test_redelivered_batch_is_not_appended_twice(realm, drain_events):
    queue_id = register(realm.member, event_types=["realm_user"])["queue_id"]
    realm.add_user("Dee Dup")
    records = drain_events.read()
    assert handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    assert handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    assert len(poll(realm.member, queue_id)) == 1


def test_events_of_a_cancelled_transaction_are_never_delivered(realm, drain_events):
    queue_id = register(realm.member, event_types=["custom"])["queue_id"]
    with pytest.raises(TransactWriteError), transaction() as tx:
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
    with pytest.raises(ApiError):
        access_queue(realm.realm_id, realm.owner.user_id, queue_id)
    assert uuid.UUID(queue_id)


def test_register_waits_until_the_fanout_index_lists_the_queue(realm, monkeypatch):
    # GIVEN an index that lags (DynamoDB GSIs are eventually consistent; moto's are not)
    from chalicelib.delivery import queues

    calls: list[int] = []
    real_query = EventQueue.by_user.query

    def lagging_query(*args, **kwargs):
        calls.append(1)
        return [] if len(calls) <= 2 else real_query(*args, **kwargs)

    monkeypatch.setattr(queues.EventQueue.by_user, "query", lagging_query)
    # WHEN a client registers
    body = register(realm.member, event_types=["realm_user"])
    # THEN registration looked until the queue was listed before reading the state
    assert body["queue_id"] and len(calls) == 3


def test_acknowledging_past_the_newest_event_moves_no_id(realm, drain_events):
    queue_id = register(realm.member, event_types=["realm_user"])["queue_id"]
    realm.add_user("Ann Early")
    drain_events()
    [first] = poll(realm.member, queue_id)
    # A client claiming ids the queue never gave is refused and acknowledges nothing.
    beyond = realm.member.get("/events", {"queue_id": queue_id, "last_event_id": 10**6,
                                          "dont_block": True})
    assert beyond.status == 400 and beyond.json["code"] == "BAD_EVENT_QUEUE_ID"
    assert EventQueue.get(queue_id).acked_through == first["id"] - 1
    assert [e["id"] for e in poll(realm.member, queue_id, first["id"])] == []
    realm.add_user("Bo Later")
    drain_events()
    assert [e["id"] for e in poll(realm.member, queue_id, first["id"])] == [first["id"] + 1]


def test_the_long_poll_function_app_serves_get_events_alone(realm, drain_events):
    # GIVEN the long-poll function's own app (what AWS runs for GET /events) and a queue
    from chalice.test import Client

    from chalicelib.handlers import longpoll

    queue = register(realm.member, event_types=["realm_user"])["queue_id"]
    new_user = realm.add_user("Lena Longpoll")
    drain_events()
    auth = realm.member.auth_header()
    with Client(longpoll.app) as client:
        # WHEN the member polls through it
        response = client.http.get(
            f"/api/v1/events?queue_id={queue}&last_event_id=-1&dont_block=true", headers=auth)
        # THEN the events come as from the API, and a bad key is refused in the envelope
        assert response.status_code == 200, response.body
        events = response.json_body["events"]
        assert [(e["type"], e["person"]["user_id"]) for e in events] == [
            ("realm_user", new_user.user_id)]
        refused = client.http.get(f"/api/v1/events?queue_id={queue}&dont_block=true",
                                  headers={"Authorization": "Basic bm9ib2R5Ondyb25n"})
        assert refused.status_code == 401 and refused.json_body["result"] == "error"
    # AND the API's own GET /events still answers (each app has its own blueprint)
    assert poll(realm.member, queue, events[-1]["id"]) == []


def test_polls_renew_the_queue_once_a_minute_and_record_the_acknowledged_id_then(
        realm, drain_events):
    from chalicelib.delivery.queues import ACK_WRITE_INTERVAL, QUEUE_IDLE_LIFETIME

    queue_id = register(realm.member, event_types=["realm_user"])["queue_id"]
    for name in ("Ann One", "Bob Two"):
        realm.add_user(name)
    drain_events()
    first, second = poll(realm.member, queue_id)
    # GIVEN a queue a poll has just renewed
    renewed = EventQueue.get(queue_id)
    assert renewed.expires_at - datetime.now(UTC) > QUEUE_IDLE_LIFETIME
    # WHEN the client polls again at once, acknowledging an event
    assert poll(realm.member, queue_id, first["id"]) == [second]
    # THEN nothing was written: the queue lives on from the last renewal
    again = EventQueue.get(queue_id)
    assert (again.expires_at, again.acked_through) == (renewed.expires_at,
                                                       renewed.acked_through)
    # WHEN a poll comes once the renewal is over a minute old
    again.update(actions=[EventQueue.expires_at.set(
        datetime.now(UTC) + QUEUE_IDLE_LIFETIME + ACK_WRITE_INTERVAL - timedelta(seconds=61))])
    assert poll(realm.member, queue_id, second["id"]) == []
    # THEN it renews the queue and records what the client acknowledged
    later = EventQueue.get(queue_id)
    assert later.acked_through == second["id"]
    assert later.expires_at - datetime.now(UTC) > QUEUE_IDLE_LIFETIME
