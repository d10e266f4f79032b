"""Shared setup for benchmarks: in-process moto, tables from infra/, a request counter."""
from __future__ import annotations

import base64
import collections
import json
import math
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode

from chalicelib import config
from infra.moto_patches import parse_insert

os.environ.update({
    "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    "TABLE_PREFIX": "bench-", "POWERTOOLS_LOG_LEVEL": "ERROR",
    "POWERTOOLS_METRICS_DISABLED": "true",
})
for _name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
    os.environ.pop(_name, None)
# Models bind their tables on first use; bind them to the bench's before any request.
config.bound_table_prefix()


class RequestCounter:
    """Counts AWS API calls by service and operation (patched at botocore's one entry point)."""

    def __init__(self) -> None:
        self.calls: collections.Counter[tuple[str, str]] = collections.Counter()
        # DynamoDB on-demand request units ("read"/"write"), by DynamoDB's size rules;
        # by_table: the same per (table suffix, "read"/"write"). Each call's units are
        # worked out when they are next read, not during the call: sizing every item
        # cost the measured code 3 % of its CPU, more for the code with more items.
        self._units: collections.Counter[str] = collections.Counter()
        self._by_table: collections.Counter[tuple[str, str]] = collections.Counter()
        self._unsized: collections.deque[tuple[str, dict, dict]] = collections.deque()

    @property
    def units(self) -> collections.Counter[str]:
        self._size_calls()
        return self._units

    @property
    def by_table(self) -> collections.Counter[tuple[str, str]]:
        self._size_calls()
        return self._by_table

    def _size_calls(self) -> None:
        prefix = os.environ.get("TABLE_PREFIX", "")
        while self._unsized:
            operation, params, response = self._unsized.popleft()
            for (table, kind), units in table_units(operation, params, response).items():
                self._units[kind] += units
                self._by_table[(table.removeprefix(prefix), kind)] += units

    def install(self) -> None:
        import botocore.client

        original = botocore.client.BaseClient._make_api_call
        counter = self

        def counting(client: object, operation: str, params: dict) -> object:
            service = client.meta.service_model.service_name  # type: ignore[attr-defined]
            counter.calls[(service, operation)] += 1
            response = original(client, operation, params)
            if service == "dynamodb":
                counter._unsized.append((operation, params, response))
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


def _insert_units(params: dict, response: dict) -> collections.Counter[tuple[str, str]]:
    """PartiQL INSERTs (delivery/batch_append.py): a written item's units; a refused one
    (its key exists) costs a unit, as a failed conditional write does."""
    units: collections.Counter[tuple[str, str]] = collections.Counter()
    for statement, answer in zip(params["Statements"], response.get("Responses", []),
                                 strict=False):
        insert = parse_insert(statement)
        if insert is not None:
            table, item = insert
            units[(table, "write")] += 1.0 if "Error" in answer else _write_units(item)
    return units


def table_units(operation: str, params: dict, response: dict
                ) -> dict[tuple[str, str], float]:
    """On-demand request units of one call, per table: a write unit per KB of each item
    written (twice in a transaction), a read unit per 4 KB read (half if eventually
    consistent; a Query per 4 KB of what it returns, a BatchGetItem per item)."""
    units: collections.Counter[tuple[str, str]] = collections.Counter()
    table = params.get("TableName", "")
    consistent = bool(params.get("ConsistentRead"))
    if operation == "GetItem":
        units[(table, "read")] += _read_units([response.get("Item", {})], consistent)
    elif operation in ("Query", "Scan"):
        units[(table, "read")] += _read_units(response.get("Items", []), consistent)
    elif operation == "BatchGetItem":
        for name, items in response.get("Responses", {}).items():
            strong = bool(params["RequestItems"][name].get("ConsistentRead"))
            units[(name, "read")] += sum(_read_units([item], strong) for item in items)
    elif operation == "TransactGetItems":
        for action in params["TransactItems"]:
            units[(action["Get"]["TableName"], "read")] += 2.0
    elif operation == "PutItem":
        units[(table, "write")] += _write_units(params["Item"])
    elif operation in ("UpdateItem", "DeleteItem"):
        units[(table, "write")] += 1.0
    elif operation == "BatchWriteItem":
        for name, requests in params["RequestItems"].items():
            units[(name, "write")] += sum(_write_units(r["PutRequest"]["Item"])
                                          if "PutRequest" in r else 1.0 for r in requests)
    elif operation == "BatchExecuteStatement":
        units.update(_insert_units(params, response))
    elif operation == "TransactWriteItems":
        for action in params["TransactItems"]:
            kind, body = next(iter(action.items()))
            units[(body["TableName"], "write")] += 2.0 * (
                _write_units(body["Item"]) if kind == "Put" else 1.0)
    return dict(units)


@contextmanager
def moto_backend() -> Iterator[None]:
    from moto import mock_aws

    from infra import moto_patches
    from infra.resources import create_all

    moto_patches.apply()
    with mock_aws():
        create_all("bench-")
        yield


@contextmanager
def database_process_backend() -> Iterator[None]:
    """moto in a process of its own (the local stack's database, infra/local/database.py)
    on a throwaway state directory: requests cross a socket and moto's work runs beside
    this process's, as DynamoDB's does on AWS, so requests made side by side overlap."""
    import tempfile

    from infra.local import environment
    from infra.local.child import start_child, stop_child
    from infra.resources import create_all

    with tempfile.TemporaryDirectory() as state:
        database, url = start_child("infra.local.database",
                                    [state, str(environment.free_port())], lambda _: None)
        try:
            environment.configure(url, "bench-")
            create_all("bench-")
            yield
        finally:
            stop_child(database, timeout=120)


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


OWNER_EMAIL = "o@bench.example.com"
MEMBER_EMAIL = "m@bench.example.com"


def bench_realm() -> tuple[Any, int, str]:
    """The benchmarks' organization "bench" and its owner (OWNER_EMAIL), inside
    moto_backend(): the realm, the owner's user id and API key."""
    from chalicelib.actions.users.users import NewUser
    from chalicelib.actions.workflows.realms import do_create_realm

    return do_create_realm("Bench", "bench", NewUser(
        email=OWNER_EMAIL, full_name="Owner", role=100))


def bench_member(realm_id: int) -> tuple[Any, str]:
    """A member (MEMBER_EMAIL) of the benchmarks' organization: the user and API key."""
    from chalicelib.actions.users.users import NewUser, do_create_user

    return do_create_user(realm_id, NewUser(email=MEMBER_EMAIL, full_name="Member"))
