"""The fan-out's second stage: a batch for a large audience is cut into slices of queues
that other invocations append to while this one does the first (fanout/slices.py)."""
from __future__ import annotations

import io
import itertools
import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from chalicelib.delivery.append import Pending
from chalicelib.delivery.queues import create_queue
from chalicelib.fanout import slices
from chalicelib.fanout.batch import handle_stream_batch
from chalicelib.handlers import stream_fanout
from chalicelib.models.events import EventQueue
from tests.functional.test_events_fanout import outbox, read_all, records_for

pytestmark = pytest.mark.handmade_events
SLICE = 3
# Realms of their own: test_events_fanout.py's counter starts anew in another worker
# process, and a shared realm would add its users' queues to these audiences.
_realm_ids = itertools.count(3 * 10**6)


@pytest.fixture
def small_slices(monkeypatch) -> list[dict[str, Any]]:
    """Slices of 3 queues, run in this process; returns the payloads they carried."""
    monkeypatch.setenv("FANOUT_SLICE_QUEUES", str(SLICE))
    carried: list[dict[str, Any]] = []
    run = slices.run_in_process

    def recording(payload: dict[str, Any]) -> Any:
        carried.append(payload)
        return run(payload)

    monkeypatch.setattr(slices, "run_in_process", recording)
    return carried


def _audience(users: int) -> tuple[int, dict[int, str]]:
    realm_id = next(_realm_ids)
    return realm_id, {user: create_queue(realm_id, user, {"event_types": None}).queue_id
                      for user in range(1, users + 1)}


def test_a_large_audience_is_appended_in_slices_and_every_queue_gets_every_event(
        aws, small_slices):
    # GIVEN 10 queues and a batch of three events to all of them
    realm_id, queues = _audience(10)
    items = [outbox(realm_id, {"type": "custom", "n": n}, {"users": list(queues)})
             for n in range(3)]
    # WHEN the batch is fanned out with slices of 3 queues
    assert handle_stream_batch({"Records": records_for(items)}) == {"batchItemFailures": []}
    # THEN three slices of 3 went elsewhere (this invocation kept the first 3 queues),
    # each event listed once per slice
    assert sorted(len(p["queues"]) for p in small_slices) == [1, 3, 3]
    assert all(len(p["events"]) == 3 for p in small_slices)
    # AND every queue has the three events, in order
    for user, queue_id in queues.items():
        assert [e["n"] for e in read_all(realm_id, user, queue_id)] == [0, 1, 2]


def test_a_failed_slice_fails_its_records_and_the_retry_duplicates_nothing(
        aws, small_slices, monkeypatch):
    # GIVEN 7 queues (slices of 3, 3, 1) and one event to all of them
    realm_id, queues = _audience(7)
    records = records_for([outbox(realm_id, {"type": "custom", "n": 1},
                                  {"users": list(queues)})])
    run = slices.run_in_process

    def second_slice_fails(payload: dict[str, Any]) -> Any:
        if len(payload["queues"]) == SLICE:
            raise RuntimeError("the slice's invocation timed out")
        return run(payload)

    # WHEN the 3-queue slice sent elsewhere fails
    monkeypatch.setattr(slices, "run_in_process", second_slice_fails)
    result = handle_stream_batch({"Records": records})
    # THEN the record is reported failed, and the other queues already have the event
    assert result == {"batchItemFailures": [
        {"itemIdentifier": records[0]["dynamodb"]["SequenceNumber"]}]}
    have = {user for user, queue_id in queues.items() if read_all(realm_id, user, queue_id)}
    assert len(have) == 4
    # WHEN the stream offers the record again and the slices work
    monkeypatch.setattr(slices, "run_in_process", run)
    assert handle_stream_batch({"Records": records}) == {"batchItemFailures": []}
    # THEN every queue has the event exactly once
    for user, queue_id in queues.items():
        assert [e["n"] for e in read_all(realm_id, user, queue_id)] == [1]


def test_on_lambda_a_slice_is_a_synchronous_invocation_of_the_same_function(
        aws, monkeypatch):
    # GIVEN a slice of two queues, and Lambda's client as a stand-in that runs the
    # function's handler with what it was sent
    realm_id, queues = _audience(2)
    queue_a, queue_b = queues_of(queues)
    work = [(queue_a, [Pending("k1", {"type": "custom", "n": 1})]),
            (queue_b, [Pending("k1", {"type": "custom", "n": 1})])]
    sent: list[dict[str, Any]] = []

    class Lambda:
        def invoke(self, FunctionName: str, Payload: bytes) -> dict[str, Any]:
            sent.append({"function": FunctionName, **json.loads(Payload)})
            answer = stream_fanout.handler(json.loads(Payload), None)
            return {"StatusCode": 200, "Payload": io.BytesIO(json.dumps(answer).encode())}

    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "teamchat-prod-fanout")
    monkeypatch.setattr(slices.aws_clients, "lambda_invoker", Lambda)
    # WHEN it is run as a slice
    assert slices.slice_runner()(slices.encode_slice(work)) == {"appended": [1, 1]}
    # THEN the function was invoked by name with the slice, and both queues have the event
    assert [s["function"] for s in sent] == ["teamchat-prod-fanout"]
    assert set(sent[0]) == {"function", slices.SLICE_EVENT_KEY}
    for user, queue_id in queues.items():
        assert [e["n"] for e in read_all(realm_id, user, queue_id)] == [1]


def test_a_slice_that_errs_on_lambda_raises_and_one_without_concurrency_runs_here(
        aws, monkeypatch):
    realm_id, queues = _audience(1)
    [queue] = queues_of(queues)
    payload = slices.encode_slice([(queue, [Pending("k", {"type": "custom", "n": 7})])])
    answers: list[Any] = [
        {"StatusCode": 200, "FunctionError": "Unhandled",
         "Payload": io.BytesIO(b'{"errorMessage": "boom"}')},
        ClientError({"Error": {"Code": "TooManyRequestsException"}}, "Invoke")]

    class Lambda:
        def invoke(self, **_: Any) -> dict[str, Any]:
            answer = answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer

    monkeypatch.setattr(slices.aws_clients, "lambda_invoker", Lambda)
    invoke = slices.InvokeFunction("teamchat-prod-fanout", slices.run_in_process)
    with pytest.raises(RuntimeError, match="boom"):
        invoke(payload)
    assert invoke(payload) == {"appended": [1]}   # throttled: appended by the caller itself
    [(user, queue_id)] = queues.items()
    assert [e["n"] for e in read_all(realm_id, user, queue_id)] == [7]


def queues_of(queues: dict[int, str]) -> list[EventQueue]:
    return [EventQueue.get(queue_id) for queue_id in queues.values()]
