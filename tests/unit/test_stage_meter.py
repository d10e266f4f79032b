"""The load bench's stage meter (infra/local/stage_meter.py): a stage's CPU and AWS
requests go to it, wake-ups and queue writes are told apart by request, nested stages
count once, and pool threads are named by their pool."""
from __future__ import annotations

import threading
import time

from infra.local.stage_meter import StageMeter


def _busy(seconds: float) -> None:
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


def test_a_stage_gets_its_threads_cpu_and_requests(tmp_path):
    meter = StageMeter("api", tmp_path)
    with meter.stage("send"):
        _busy(0.02)
        meter.count_call("dynamodb", "TransactWriteItems", {})
    meter.count_call("dynamodb", "GetItem", {"TableName": "p-users"})
    assert meter.cpu["send"] >= 0.02
    assert meter.requests == {"send|dynamodb.TransactWriteItems": 1,
                              "other api|dynamodb.GetItem": 1}


def test_an_inner_stage_is_not_counted_in_the_outer_one_too(tmp_path):
    meter = StageMeter("workers", tmp_path)
    with meter.stage("fan-out"), meter.stage("stream"):
        _busy(0.03)
    assert meter.cpu["stream"] >= 0.03
    assert meter.cpu["fan-out"] < 0.02


def test_wake_ups_and_queue_writes_are_told_by_their_requests(tmp_path):
    meter = StageMeter("workers", tmp_path)

    def pool_work() -> None:
        meter.count_call("sqs", "SendMessage", {"QueueUrl": "http://q/p-wake-abc"})
        meter.count_call("sqs", "SendMessageBatch", {"QueueUrl": "http://q/p-notifications"})
        meter.count_call("dynamodb", "PutItem", {"TableName": "p-queue_events"})
        meter.count_call("dynamodb", "BatchExecuteStatement", {"Statements": []})
        meter.count_call("dynamodb", "BatchGetItem", {"RequestItems": {}})

    thread = threading.Thread(target=pool_work, name="append_0")
    thread.start()
    thread.join()
    assert meter.requests == {"wake|sqs.SendMessage": 1,
                              "fan-out|sqs.SendMessageBatch": 1,
                              "queue write|dynamodb.PutItem": 1,
                              "queue write|dynamodb.BatchExecuteStatement": 1,
                              "fan-out|dynamodb.BatchGetItem": 1}
    assert set(meter.snapshot()) == {"role", "at", "process_cpu", "cpu", "requests"}
