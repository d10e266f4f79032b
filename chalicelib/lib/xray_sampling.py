"""The X-Ray SDK's sampling clients, made when first used instead of at import.

Importing the SDK (as powertools' Tracer does) builds its recorder, whose centralized
sampler makes two X-Ray clients: 0.37 s of the SDK's 0.43 s import on this machine, a
long-poll function's whole cold-start budget. A Lambda function never uses them: Lambda
decides sampling, and the SDK's sampling poller is not started there. So while the SDK
is imported, an X-Ray client is a stand-in that makes the real one on first use.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import botocore.session


class LazyClient:
    """A botocore client made by `make` on first attribute access."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make

    @functools.cached_property
    def _client(self) -> Any:
        return self._make()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


@contextmanager
def lazy_xray_clients() -> Iterator[None]:
    """While open, botocore sessions hand out X-Ray clients as LazyClient stand-ins."""
    original = botocore.session.Session.create_client

    def create_client(self: botocore.session.Session, service_name: str,
                      *args: Any, **kwargs: Any) -> Any:
        if service_name != "xray":
            return original(self, service_name, *args, **kwargs)
        return LazyClient(lambda: original(self, service_name, *args, **kwargs))

    botocore.session.Session.create_client = create_client  # type: ignore[method-assign]
    try:
        yield
    finally:
        botocore.session.Session.create_client = original  # type: ignore[method-assign]
