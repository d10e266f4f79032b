"""The X-Ray SDK's sampling clients, made when first used instead of at import.

Importing the SDK (as powertools' Tracer does) builds its recorder, whose centralized
sampler makes two botocore sessions and an X-Ray client from each: most of the SDK's
import, and a long-poll function's whole cold-start budget. A Lambda function never
uses them: Lambda decides sampling, and the SDK's sampling poller is not started there.
So while the SDK is imported, a new session and its X-Ray client are stand-ins that make
the real ones on first use.
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


class _DeferredSession:
    """Stands in for `botocore.session.get_session()`: the session (240 event handlers
    registered) is made only when a client it handed out is first used."""

    def __init__(self, make_session: Callable[[], botocore.session.Session]) -> None:
        self._make_session = make_session

    def create_client(self, *args: Any, **kwargs: Any) -> LazyClient:
        return LazyClient(lambda: self._make_session().create_client(*args, **kwargs))


@contextmanager
def lazy_xray_clients() -> Iterator[None]:
    """While open, new botocore sessions are deferred and hand out lazy clients."""
    original = botocore.session.get_session

    def get_session(env_vars: Any = None) -> Any:
        return _DeferredSession(lambda: original(env_vars))

    botocore.session.get_session = get_session
    try:
        yield
    finally:
        botocore.session.get_session = original
