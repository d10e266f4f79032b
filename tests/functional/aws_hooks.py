"""Botocore event hooks on every AWS client of the process, for counting and faking calls.

A handler registered on `before-call` sees each call (service, operation, parameters)
before it is sent; returning a response from it answers the call without sending it, as
if AWS had (this is how faults are injected: the app gets exactly what AWS would send
once botocore's own retries gave up). Clients are found where they are: those that exist
(boto3's, PynamoDB's, per process and per thread) and those created while hooked.
"""
from __future__ import annotations

import gc
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from botocore.awsrequest import AWSResponse
from botocore.client import BaseClient, ClientCreator

# (service name, operation name, request parameters) -> a fake answer, or None to send.
Handler = Callable[[str, str, dict[str, Any]], "tuple[AWSResponse, dict] | None"]


def error_response(service: str, code: str, message: str, status: int = 400,
                   **extra: Any) -> tuple[AWSResponse, dict[str, Any]]:
    """What botocore would parse from AWS's error answer."""
    del service
    http = AWSResponse("https://aws.invalid/", status, {}, None)
    return http, {"Error": {"Code": code, "Message": message},
                  "ResponseMetadata": {"HTTPStatusCode": status, "MaxAttemptsReached": True},
                  **extra}


@contextmanager
def hooked(handler: Handler) -> Iterator[None]:
    """Calls `handler` before every AWS call of every client while the block runs."""
    unique_id = f"teamchat-test-hook-{id(handler)}"

    def on_call(model: Any, params: dict[str, Any], **_: Any) -> Any:
        return handler(model.service_model.service_name, model.name, params)

    def attach(client: BaseClient) -> None:
        client.meta.events.register_first("before-call", on_call, unique_id=unique_id)

    clients = [o for o in gc.get_objects() if isinstance(o, BaseClient)]
    for client in clients:
        attach(client)
    original = ClientCreator.create_client

    def create_client(self: ClientCreator, *args: Any, **kwargs: Any) -> BaseClient:
        client = original(self, *args, **kwargs)
        attach(client)
        clients.append(client)
        return client

    ClientCreator.create_client = create_client  # type: ignore[method-assign]
    try:
        yield
    finally:
        ClientCreator.create_client = original  # type: ignore[method-assign]
        for client in clients:
            client.meta.events.unregister("before-call", unique_id=unique_id)


class CallCounter:
    """Counts AWS calls by operation (e.g. `counter["dynamodb.BatchGetItem"]`)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, service: str, operation: str, params: dict[str, Any]) -> None:
        with self._lock:
            self.calls[f"{service}.{operation}"] += 1

    def total(self, service: str) -> int:
        return sum(n for name, n in self.calls.items() if name.startswith(service + "."))


@contextmanager
def counting() -> Iterator[CallCounter]:
    counter = CallCounter()
    with hooked(counter):
        yield counter
