"""Shared setup for benchmarks: in-process moto, tables from infra/, a request counter."""
from __future__ import annotations

import base64
import collections
import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode

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
        # Estimated DynamoDB capacity units ("read"/"write") for items under 1 KB / 4 KB.
        self.units: collections.Counter[str] = collections.Counter()

    def install(self) -> None:
        import botocore.client

        original = botocore.client.BaseClient._make_api_call
        counter = self

        def counting(client: object, operation: str, params: dict) -> object:
            service = client.meta.service_model.service_name  # type: ignore[attr-defined]
            counter.calls[(service, operation)] += 1
            if service == "dynamodb":
                counter.units.update(capacity_units(operation, params))
            return original(client, operation, params)

        botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]

    @contextmanager
    def measure(self) -> Iterator[collections.Counter[tuple[str, str]]]:
        before = self.calls.copy()
        delta: collections.Counter[tuple[str, str]] = collections.Counter()
        yield delta
        delta.update(self.calls - before)


def capacity_units(operation: str, params: dict) -> dict[str, float]:
    """On-demand request units of one small-item call, by DynamoDB's pricing rules.

    Strongly consistent reads cost 1 unit, eventually consistent 0.5; transactions cost
    twice per item; a Query of small items costs about one read unit per 4 KB page.
    """
    if operation == "GetItem":
        return {"read": 1.0 if params.get("ConsistentRead") else 0.5}
    if operation == "Query":
        return {"read": 1.0 if params.get("ConsistentRead") else 0.5}
    if operation == "BatchGetItem":
        return {"read": sum(len(t["Keys"]) * (1.0 if t.get("ConsistentRead") else 0.5)
                            for t in params["RequestItems"].values())}
    if operation == "TransactGetItems":
        return {"read": 2.0 * len(params["TransactItems"])}
    if operation in ("PutItem", "UpdateItem", "DeleteItem"):
        return {"write": 1.0}
    if operation == "BatchWriteItem":
        return {"write": float(sum(len(v) for v in params["RequestItems"].values()))}
    if operation == "TransactWriteItems":
        return {"write": 2.0 * len(params["TransactItems"])}
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


def form_headers(email: str, api_key: str) -> dict[str, str]:
    """Basic authentication and a form body, as the API's clients send."""
    token = base64.b64encode(f"{email}:{api_key}".encode()).decode()
    return {"Authorization": f"Basic {token}",
            "Content-Type": "application/x-www-form-urlencoded"}


def api_caller(client: Any) -> Callable[..., dict[str, Any]]:
    """call(method, "/path", headers, **params) through a chalice.test.Client: non-string
    parameters JSON-encoded, the answer's JSON returned, anything but 200 an error."""
    def call(method: str, path: str, headers: dict[str, str], **params: object
             ) -> dict[str, Any]:
        body = urlencode({k: v if isinstance(v, str) else json.dumps(v)
                          for k, v in params.items()}).encode()
        response = client.http.request(method, f"/api/v1{path}", headers=headers, body=body)
        assert response.status_code == 200, (path, response.body[:300])
        return json.loads(response.body)
    return call
