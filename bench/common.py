"""Shared setup for benchmarks: in-process moto, tables from infra/, a request counter."""
from __future__ import annotations

import collections
import math
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

os.environ.update({
    "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    "TABLE_PREFIX": "bench-", "POWERTOOLS_LOG_LEVEL": "ERROR",
    "POWERTOOLS_METRICS_DISABLED": "true",
})
for _name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
    os.environ.pop(_name, None)


class RequestCounter:
    """Counts AWS API calls by service and operation (patched at botocore's one entry point)."""

    def __init__(self) -> None:
        self.calls: collections.Counter[tuple[str, str]] = collections.Counter()
        # DynamoDB on-demand request units ("read"/"write"), by DynamoDB's size rules.
        self.units: collections.Counter[str] = collections.Counter()

    def install(self) -> None:
        import botocore.client

        original = botocore.client.BaseClient._make_api_call
        counter = self

        def counting(client: object, operation: str, params: dict) -> object:
            service = client.meta.service_model.service_name  # type: ignore[attr-defined]
            counter.calls[(service, operation)] += 1
            response = original(client, operation, params)
            if service == "dynamodb":
                counter.units.update(capacity_units(operation, params, response))
            return response

        botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]

    @contextmanager
    def measure(self) -> Iterator[collections.Counter[tuple[str, str]]]:
        before = self.calls.copy()
        delta: collections.Counter[tuple[str, str]] = collections.Counter()
        yield delta
        delta.update(self.calls - before)


def item_bytes(item: dict) -> int:
    """An item's size as DynamoDB counts it: attribute names plus values."""
    def value_bytes(value: dict) -> int:
        kind, data = next(iter(value.items()))
        if kind in ("S", "B"):
            return len(data.encode() if isinstance(data, str) else data)
        if kind == "N":
            return len(str(data).lstrip("-").replace(".", "")) // 2 + 1
        if kind in ("SS", "NS", "BS"):
            return sum(len(str(v)) for v in data)
        if kind == "M":
            return 3 + sum(len(k) + value_bytes(v) + 1 for k, v in data.items())
        if kind == "L":
            return 3 + sum(value_bytes(v) + 1 for v in data)
        return 1
    return sum(len(name) + value_bytes(value) for name, value in item.items())


def _write_units(item: dict) -> float:
    return float(max(1, math.ceil(item_bytes(item) / 1024)))


def _read_units(items: list[dict], consistent: bool) -> float:
    units = max(1, math.ceil(sum(item_bytes(i) for i in items) / 4096))
    return units * (1.0 if consistent else 0.5)


def capacity_units(operation: str, params: dict, response: dict) -> dict[str, float]:
    """On-demand request units of one call: a write unit per KB of each item written
    (twice in a transaction), a read unit per 4 KB read (half if eventually consistent;
    a Query per 4 KB of what it returns, a BatchGetItem per item)."""
    consistent = bool(params.get("ConsistentRead"))
    if operation == "GetItem":
        return {"read": _read_units([response.get("Item", {})], consistent)}
    if operation in ("Query", "Scan"):
        return {"read": _read_units(response.get("Items", []), consistent)}
    if operation == "BatchGetItem":
        return {"read": sum(_read_units([item], bool(params["RequestItems"][table].get(
            "ConsistentRead"))) for table, items in response.get("Responses", {}).items()
            for item in items)}
    if operation == "TransactGetItems":
        return {"read": 2.0 * len(params["TransactItems"])}
    if operation == "PutItem":
        return {"write": _write_units(params["Item"])}
    if operation in ("UpdateItem", "DeleteItem"):
        return {"write": 1.0}
    if operation == "BatchWriteItem":
        return {"write": sum(_write_units(r["PutRequest"]["Item"]) if "PutRequest" in r
                             else 1.0 for rs in params["RequestItems"].values() for r in rs)}
    if operation == "TransactWriteItems":
        return {"write": 2.0 * sum(_write_units(a["Put"]["Item"]) if "Put" in a else 1.0
                                   for a in params["TransactItems"])}
    return {}


@contextmanager
def moto_backend() -> Iterator[None]:
    from moto import mock_aws

    from infra import moto_patches
    from infra.resources import create_all

    moto_patches.apply()
    with mock_aws():
        create_all("bench-")
        yield


def median_ms(action: Callable[[], object], repeat: int = 5) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)
