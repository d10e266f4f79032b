"""A row of the examples' table, and what several rows share."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.e2e.reference_dev_data import DevData

Result = dict[str, Any]


@dataclass(frozen=True)
class Example:
    name: str         # the reference's example function (and which call of it)
    operation: str    # "METHOD /path" in the reference document
    call: Callable[[DevData], Result]
    check: Callable[[DevData, Result], None] | None = None
    error: str | None = None   # the error code the example expects, if it expects one


def stream_id(x: DevData, name: str) -> int:
    return int(x.client.get_stream_id(name)["stream_id"])


def first_subscription(x: DevData) -> int:
    return int(x.client.get_subscriptions()["subscriptions"][0]["stream_id"])


def keep(key: str, value_of: Callable[[Result], Any]) -> Callable[[DevData, Result], None]:
    """A check that hands a value of the answer to later rows."""
    def check(x: DevData, result: Result) -> None:
        x.found[key] = value_of(result)
    return check


def that(predicate: Callable[[DevData, Result], bool], what: str
         ) -> Callable[[DevData, Result], None]:
    """A check that the answer satisfies `predicate` (`what` says what it is)."""
    def check(x: DevData, result: Result) -> None:
        assert predicate(x, result), (what, result)
    return check
