"""Reads named up front go out as one BatchGetItem (chalicelib/models/read_ahead.py)."""
from __future__ import annotations

import dataclasses
import json

import pytest

from chalicelib.models.base import BaseModel
from chalicelib.models.read_ahead import read_ahead
from chalicelib.models.realms import Realm
from chalicelib.models.users import User
from tests.functional.aws_hooks import counting, hooked


def tables_read(counter_calls: list[tuple[str, str]], operation: str) -> list[str]:
    return [table for op, table in counter_calls if op == operation]


@pytest.fixture
def channel(realm):
    created = realm.member.post("/users/me/subscriptions", {
        "subscriptions": json.dumps([{"name": "ahead"}])})
    assert created.ok
    return realm.member.get("/get_stream_id", {"stream": "ahead"}).json["stream_id"]


def recorded() -> tuple[list[tuple[str, str]], object]:
    calls: list[tuple[str, str]] = []

    def record(service: str, operation: str, params: dict) -> None:
        if service == "dynamodb":
            body = json.loads(params["body"])
            tables = [body["TableName"]] if "TableName" in body else sorted(
                body.get("RequestItems", {}))
            calls.extend((operation, t.rsplit("-", 1)[-1]) for t in tables or [""])
    return calls, record


@pytest.mark.parametrize("to", ["name", "id"])
def test_sending_reads_the_organization_sender_and_channel_together(realm, channel, to):
    calls, record = recorded()
    with hooked(record):
        sent = realm.member.post("/messages", {
            "type": "stream", "to": "ahead" if to == "name" else str(channel),
            "topic": "t", "content": "hello"})
    assert sent.ok
    # THEN none of them is a GetItem of its own; by name the channel's claim comes
    # first and the channel with the caller's subscription second; by id all at once
    assert not {"realms", "users", "names", "streams", "subscriptions"} & set(
        tables_read(calls, "GetItem"))
    assert set(tables_read(calls, "BatchGetItem")) >= {"realms", "users", "streams",
                                                      "subscriptions"}
    with counting() as counter:
        realm.member.post("/messages", {
            "type": "stream", "to": "ahead" if to == "name" else str(channel),
            "topic": "t", "content": "hello again"})
    assert counter.calls["dynamodb.BatchGetItem"] == (2 if to == "name" else 1)
    assert counter.calls["dynamodb.GetItem"] == 1   # the API key


def test_an_unknown_channel_is_still_refused_as_before(realm):
    sent = realm.member.post("/messages", {"type": "stream", "to": "nowhere",
                                           "topic": "t", "content": "hello"})
    assert sent.status == 400 and sent.json["code"] == "STREAM_DOES_NOT_EXIST"
    sent = realm.member.post("/messages", {"type": "stream", "to": "987654",
                                           "topic": "t", "content": "hello"})
    assert sent.status == 400 and sent.json["code"] == "BAD_REQUEST"


def test_each_answer_serves_one_get_and_later_gets_read_the_table(realm):
    # GIVEN an organization and one of its users read ahead, and a user that does not exist
    with counting() as counter, read_ahead([(Realm, realm.realm_id, None),
                                            (User, realm.realm_id, realm.member.user_id),
                                            (User, realm.realm_id, 999_999)]):
        # WHEN they are read
        first = Realm.get(realm.realm_id)
        member = User.get_or_none(realm.realm_id, realm.member.user_id)
        missing = User.get_or_none(realm.realm_id, 999_999)
        reads_ahead = dict(counter.calls)
        # ... and the organization changes, then is read again
        first.update(actions=[Realm.name.set("Renamed ahead")])
        again = Realm.get(realm.realm_id, consistent_read=True)
    # THEN the three came from one BatchGetItem, the missing one answers as missing,
    # and the second read saw the change
    assert reads_ahead == {"dynamodb.BatchGetItem": 1}
    assert member is not None and member.user_id == realm.member.user_id
    assert missing is None
    assert again.name == "Renamed ahead"
    assert counter.calls["dynamodb.GetItem"] == 1
    with pytest.raises(User.DoesNotExist), read_ahead([(User, realm.realm_id, 999_999)]):
        User.get(realm.realm_id, 999_999)


def test_a_nested_read_ahead_does_not_read_what_the_outer_one_holds(realm):
    with counting() as counter, read_ahead([(Realm, realm.realm_id, None)]):
        with read_ahead([(Realm, realm.realm_id, None),
                         (User, realm.realm_id, realm.owner.user_id)]):
            assert Realm.get(realm.realm_id).realm_id == realm.realm_id
        # what the inner block held and did not use is gone with it
        with read_ahead([]):
            pass
        assert User.get_or_none(realm.realm_id, realm.owner.user_id) is not None
    assert counter.calls == {"dynamodb.BatchGetItem": 2, "dynamodb.GetItem": 1}


def test_outside_a_read_ahead_gets_go_to_the_table(realm):
    with counting() as counter:
        assert Realm.get_or_none(realm.realm_id) is not None
    assert counter.calls == {"dynamodb.GetItem": 1}
    assert issubclass(Realm, BaseModel)


def test_keys_left_unprocessed_are_asked_again(realm):
    from botocore.awsrequest import AWSResponse

    calls: list[int] = []

    def throttle_once(service: str, operation: str, params: dict):
        if operation != "BatchGetItem":
            return None
        calls.append(1)
        if len(calls) > 1:
            return None
        body = json.loads(params["body"])
        return AWSResponse("https://aws.invalid/", 200, {}, None), {
            "Responses": {}, "UnprocessedKeys": body["RequestItems"],
            "ResponseMetadata": {"HTTPStatusCode": 200}}

    with hooked(throttle_once), read_ahead([(Realm, realm.realm_id, None)]):
        assert Realm.get(realm.realm_id).realm_id == realm.realm_id
    assert len(calls) == 2


def test_a_poll_reads_the_caller_s_key_and_its_queue_together(realm):
    queue = realm.member.post("/register", {"event_types": json.dumps(["message"])}).json
    calls, record = recorded()
    with hooked(record):
        polled = realm.member.get("/events", {"queue_id": queue["queue_id"],
                                              "last_event_id": queue["last_event_id"],
                                              "dont_block": "true"})
    assert polled.ok and polled.json["events"] == []
    # THEN the API key and the queue come in one BatchGetItem, neither in a GetItem
    assert not {"api_keys", "event_queues"} & set(tables_read(calls, "GetItem"))
    assert tables_read(calls, "BatchGetItem") == ["api_keys", "event_queues"]


@pytest.mark.parametrize("queue_id", ["", "q" * 65, None])
def test_a_poll_naming_no_queue_or_an_impossible_one_is_answered_as_before(realm, queue_id):
    params = {"dont_block": "false"} if queue_id is None else {"queue_id": queue_id}
    answer = realm.member.get("/events", params)
    assert answer.status == 400 and answer.json["result"] == "error"


def test_a_poll_with_a_wrong_key_learns_nothing_of_the_queue_it_names(realm):
    queue = realm.member.post("/register", {"event_types": json.dumps(["message"])}).json
    wrong = dataclasses.replace(realm.member, api_key="a" * 32)
    answer = wrong.get("/events", {"queue_id": queue["queue_id"], "dont_block": "true"})
    assert answer.status == 401 and answer.json["code"] == "UNAUTHORIZED"
    assert "queue_id" not in answer.json
