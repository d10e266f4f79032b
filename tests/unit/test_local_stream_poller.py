"""The local stack's stream poller: records reach the handler once, in order, even when
its shard iterator expires (infra/local/pollers.py)."""
from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from infra import moto_patches
from infra.local.pollers import StreamPoller


def _wait_for(predicate: Any, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.05)
    return bool(predicate())


def test_a_poller_whose_iterator_expired_goes_on_after_the_last_record_delivered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    moto_patches.apply()
    with mock_aws():
        table = f"outbox-{uuid.uuid4().hex[:8]}"
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(
            TableName=table, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        seen: list[str] = []

        def handler(event: dict[str, Any], _context: Any) -> None:
            seen.extend(r["dynamodb"]["Keys"]["k"]["S"] for r in event["Records"])

        stop = threading.Event()
        poller = StreamPoller(handler, "fanout", table, tmp_path / "position", stop)
        poller.start()
        try:
            dynamodb.put_item(TableName=table, Item={"k": {"S": "first"}})
            assert _wait_for(lambda: seen == ["first"])
            # WHEN every iterator handed out so far has expired
            from moto.dynamodbstreams.models import dynamodbstreams_backends

            dynamodbstreams_backends["123456789012"]["us-east-1"].shard_iterators.clear()
            dynamodb.put_item(TableName=table, Item={"k": {"S": "second"}})
            # THEN the poller starts again after what it delivered: nothing twice
            assert _wait_for(lambda: len(seen) >= 2)
            time.sleep(0.3)
            assert seen == ["first", "second"]
        finally:
            stop.set()
            poller.join(timeout=5)
