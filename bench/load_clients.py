"""The load bench's clients (bench/load.py): senders posting to one channel, waiting
clients long-polling their queues, and what they saw."""
from __future__ import annotations

import json
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import requests
from requests.adapters import HTTPAdapter

REQUEST_TIMEOUT = 120.0

@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)   # requests with no answer
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, endpoint: str, status: int, seconds: float) -> None:
        with self.lock:
            self.latencies[endpoint].append(seconds)
            self.statuses[(endpoint, status)] += 1


def session() -> requests.Session:
    s = requests.Session()
    s.mount("http://", HTTPAdapter(pool_connections=1, pool_maxsize=2))
    return s


def call(s: requests.Session, stats: Stats, endpoint: str, method: str, url: str,
         **kwargs: Any) -> requests.Response | None:
    started = time.perf_counter()
    try:
        response = s.request(method, url, timeout=REQUEST_TIMEOUT, **kwargs)
    except requests.RequestException as error:
        stats.record(endpoint, 0, time.perf_counter() - started)
        with stats.lock:
            stats.errors[type(error).__name__] += 1
        return None
    stats.record(endpoint, response.status_code, time.perf_counter() - started)
    return response


@dataclass
class Sent:
    """What the server acknowledged: message id -> (sender, sequence), and when."""

    messages: dict[int, tuple[int, int]] = field(default_factory=dict)
    acked_at: dict[int, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def sender(number: int, url: str, auth: tuple[str, str], stop: threading.Event,
           stats: Stats, sent: Sent, interval: float = 0.0, offset: float = 0.0) -> None:
    """Sends until stopped: back to back, or one message every `interval` seconds (at
    once when an answer came late, so a slow stack gets the same number of messages)."""
    s = session()
    sequence = 0
    next_at = time.monotonic() + offset   # senders spread over one interval
    while not stop.is_set():
        if interval:
            if stop.wait(max(0.0, next_at - time.monotonic())):
                break
            next_at += interval
        response = call(s, stats, "POST /messages", "POST", f"{url}/api/v1/messages",
                        auth=auth, data={"type": "stream", "to": "load",
                                         "topic": f"sender {number}",
                                         "content": f"load {number} {sequence}"})
        if response is not None and response.status_code == 200:
            with sent.lock:
                sent.messages[response.json()["id"]] = (number, sequence)
                sent.acked_at[response.json()["id"]] = time.monotonic()
            sequence += 1


@dataclass
class Waiter:
    url: str
    auth: tuple[str, str]
    queue_id: str = ""
    last_event_id: int = -1
    received: list[tuple[int, float]] = field(default_factory=list)   # (message id, when)
    event_ids: list[int] = field(default_factory=list)

    def register(self, stats: Stats) -> None:
        response = call(session(), stats, "POST /register", "POST",
                        f"{self.url}/api/v1/register", auth=self.auth,
                        data={"event_types": json.dumps(["message"])})
        assert response is not None and response.status_code == 200, response
        self.queue_id = response.json()["queue_id"]
        self.last_event_id = response.json()["last_event_id"]

    def run(self, done: threading.Event, stats: Stats) -> None:
        s = session()
        while not done.is_set():
            response = call(s, stats, "GET /events", "GET", f"{self.url}/api/v1/events",
                            auth=self.auth, params={"queue_id": self.queue_id,
                                                    "last_event_id": self.last_event_id})
            if response is None or response.status_code != 200:
                time.sleep(0.5)
                continue
            now = time.monotonic()
            for event in response.json()["events"]:
                self.event_ids.append(event["id"])
                self.last_event_id = max(self.last_event_id, event["id"])
                if event["type"] == "message":
                    self.received.append((event["message"]["id"], now))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0
