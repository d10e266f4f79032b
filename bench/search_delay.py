"""Indexing delay on the local stack `make run` starts: from the answer to a send, an
edit or a topic move until `GET /messages` with a `search` narrow returns the change.

Run: .venv/bin/python -m bench.search_delay [rounds]
"""
from __future__ import annotations

import json
import sys
import time
import uuid
from collections.abc import Callable

import requests

from bench.event_delay import percentiles
from infra.local.launcher import LocalStack, fresh_stack

POLL_SECONDS = 0.02
GIVE_UP_SECONDS = 30


class Searcher:
    def __init__(self, stack: LocalStack) -> None:
        owner = stack.accounts()["owner"]
        self.auth = (owner["email"], owner["api_key"])
        self.api = f"{stack.url}/api/v1"
        self.session = requests.Session()

    def found(self, narrow: list[dict[str, str]]) -> list[int]:
        answer = self.session.get(f"{self.api}/messages", auth=self.auth, timeout=10, params={
            "anchor": "newest", "num_before": 10, "num_after": 0,
            "narrow": json.dumps(narrow)})
        assert answer.ok, answer.text
        return [m["id"] for m in answer.json()["messages"]]

    def finds(self, message_id: int, narrow: list[dict[str, str]]) -> Callable[[], bool]:
        return lambda: message_id in self.found(narrow)

    def call(self, method: str, path: str, **data: str) -> dict:
        answer = self.session.request(method, f"{self.api}{path}", auth=self.auth,
                                      timeout=10, data=data)
        assert answer.ok, answer.text
        return dict(answer.json())


def until(condition: Callable[[], bool]) -> float:
    """Milliseconds until `condition` holds (polled every POLL_SECONDS)."""
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > GIVE_UP_SECONDS:
            raise TimeoutError("the search index never showed the change")
        time.sleep(POLL_SECONDS)
    return (time.perf_counter() - started) * 1000


def search(text: str) -> dict[str, str]:
    return {"operator": "search", "operand": text}


def word() -> str:
    return "probe" + uuid.uuid4().hex[:10]


def measure(stack: LocalStack, rounds: int) -> dict[str, list[float]]:
    s = Searcher(stack)
    delays: dict[str, list[float]] = {"a send": [], "an edit": [], "a move": []}
    for n in range(rounds):
        first, second = word(), word()
        topic = f"delay {n}"
        sent = s.call("POST", "/messages", type="stream", to="general", topic=topic,
                      content=f"{first} in a message")
        message_id = int(sent["id"])
        delays["a send"].append(until(s.finds(message_id, [search(first)])))
        s.call("PATCH", f"/messages/{message_id}", content=f"{second} after an edit")
        delays["an edit"].append(until(s.finds(message_id, [search(second)])))
        moved = f"moved {n}"
        s.call("PATCH", f"/messages/{message_id}", topic=moved, propagate_mode="change_all")
        delays["a move"].append(until(s.finds(message_id, [
            {"operator": "channel", "operand": "general"},
            {"operator": "topic", "operand": moved}, search(second)])))
    return delays


def main(rounds: int = 20) -> None:
    with fresh_stack() as stack:
        delays = measure(stack, rounds)
    print(f"\nIndexing delay on the local stack ({rounds} rounds; answer -> found by search, "
          f"polled every {POLL_SECONDS * 1000:.0f} ms)")
    for change, values in delays.items():
        print(f"  after {change:<8} {percentiles(values)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
