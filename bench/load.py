"""A bounded load run against the local stack (`make run`): senders and waiting clients.

Run: make load      (or .venv/bin/python -m bench.load [--senders 20] [--waiters 50]
                      [--seconds 60] [--rate 22] [--url http://127.0.0.1:8000])

Without --url it starts its own stack as `make run` does (a subprocess on a fresh state
directory); with --url it uses a running one (its .local-state/demo-accounts.json).
Senders post to one channel as fast as their answers come (the stack's capacity: its
delivery delay is then mostly queueing behind a saturated machine) or, with --rate, at
that many messages a second between them (the delay at a given throughput: 22 messages
a second to 50 waiting clients is 1,100 events a second); each waiting client holds a
queue registered for messages and long-polls GET /events. After the sending time, the
waiters drain what is left (bounded), then the run checks that every acknowledged
message reached every queue exactly once and, per sender, in the order it was sent, and
that no request answered 5xx. It prints throughput, p50/p95/p99 latency per endpoint,
the send-to-event delivery delay, and which resource saturated first.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from requests.adapters import HTTPAdapter

DRAIN_SECONDS = 240.0   # after sending: the most the waiters get to receive the rest
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


class CpuMeter:
    """CPU used by the stack's processes (from /proc: the API and its children, the
    database and the workers) and by this one, sampled every second."""

    def __init__(self, pid: int | None) -> None:
        self.ticks = os.sysconf("SC_CLK_TCK")
        # This process too: the clients share the machine's cores with the stack.
        stack = {"API": pid, **_children(pid)} if pid else {}
        self.processes = {**stack, "load clients": os.getpid()}
        self.samples: dict[str, list[float]] = {name: [] for name in self.processes}

    def seconds(self, pid: int) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:   # it has ended
            return 0.0
        return (int(fields[11]) + int(fields[12])) / self.ticks

    def sample(self, stop: threading.Event) -> None:
        last = {name: self.seconds(pid) for name, pid in self.processes.items()}
        last_at = time.monotonic()
        while not stop.wait(1.0):
            now_at = time.monotonic()
            for name, pid in self.processes.items():
                now = self.seconds(pid)
                self.samples[name].append((now - last[name]) / (now_at - last_at))
                last[name] = now
            last_at = now_at

    def busiest(self) -> float:
        return max((max(s) for name, s in self.samples.items()
                    if s and name != "load clients"), default=0.0)


def _children(pid: int) -> dict[str, int]:
    """The stack's child processes by role (infra/local/database.py, workers.py)."""
    found: dict[str, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) != pid:
                continue
            command = (stat.parent / "cmdline").read_bytes().decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        for role in ("database", "workers"):
            if f"infra.local.{role}" in command:
                found[role] = int(stat.parent.name)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--senders", type=int, default=20)
    parser.add_argument("--waiters", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=0.0,
                        help="messages a second from all senders (default: as fast as "
                             "answers come)")
    parser.add_argument("--url")
    args = parser.parse_args()

    stack = None
    if args.url:
        url = args.url.rstrip("/")
        state = Path(os.environ.get("LOCAL_STATE_DIR", ".local-state"))
        pid = None
    else:
        from infra.local.launcher import start_stack

        state = Path(tempfile.mkdtemp(prefix="teamchat-load-")) / "state"
        state.mkdir()
        # A load test sends more than a person would: no per-user limit in the way.
        stack = start_stack(state, RATE_LIMITS=os.environ.get("RATE_LIMITS", "api_by_user=off"))
        url, pid = stack.url, stack.process.pid
        print(f"local stack on {url} (started in {stack.startup_seconds:.1f} s)")
    accounts = {a["role"]: a for a in json.loads((state / "demo-accounts.json").read_text())}
    auths = [(a["email"], a["api_key"]) for a in accounts.values()]
    senders_auth = [auths[i] for i in range(len(auths)) if accounts[
        list(accounts)[i]]["role"] != "guest"]
    try:
        return run(url, pid, args, accounts, auths, senders_auth)
    finally:
        if stack is not None:
            stack.stop()


def run(url: str, pid: int | None, args: argparse.Namespace, accounts: dict[str, dict],
        auths: list[tuple[str, str]], senders_auth: list[tuple[str, str]]) -> int:
    stats, sent = Stats(), Sent()
    owner = accounts["owner"]
    subscribed = requests.post(f"{url}/api/v1/users/me/subscriptions",
                               auth=(owner["email"], owner["api_key"]), timeout=30, data={
                                   "subscriptions": json.dumps([{"name": "load"}]),
                                   "principals": json.dumps(
                                       [a["user_id"] for a in accounts.values()])})
    assert subscribed.status_code == 200, subscribed.text
    waiters = [Waiter(url, auths[i % len(auths)]) for i in range(args.waiters)]
    for waiter in waiters:
        waiter.register(stats)
    stop_sending, stop_waiting, stop_meter = (threading.Event() for _ in range(3))
    meter = CpuMeter(pid)
    if meter:
        threading.Thread(target=meter.sample, args=(stop_meter,), daemon=True).start()
    waiting = [threading.Thread(target=w.run, args=(stop_waiting, stats), daemon=True)
               for w in waiters]
    interval = args.senders / args.rate if args.rate > 0 else 0.0
    sending = [threading.Thread(target=sender, args=(
        n, url, senders_auth[n % len(senders_auth)], stop_sending, stats, sent, interval,
        interval * n / args.senders), daemon=True) for n in range(args.senders)]
    for thread in waiting + sending:
        thread.start()
    started = time.monotonic()
    time.sleep(args.seconds)
    stop_sending.set()
    for thread in sending:
        thread.join()
    send_seconds = time.monotonic() - started
    wanted = set(sent.messages)
    deadline = time.monotonic() + DRAIN_SECONDS
    while time.monotonic() < deadline and not all(
            wanted <= {m for m, _ in w.received} for w in waiters):
        time.sleep(0.5)
    drained_after = time.monotonic() - started - send_seconds
    stop_waiting.set()
    stop_meter.set()
    return report(args, stats, sent, waiters, send_seconds, drained_after, meter)


def report(args: argparse.Namespace, stats: Stats, sent: Sent, waiters: list[Waiter],
           send_seconds: float, drained_after: float, meter: CpuMeter | None) -> int:
    problems: list[str] = []
    delays: list[float] = []
    for waiter in waiters:
        ids = [m for m, _ in waiter.received]
        counts = Counter(ids)
        missing = set(sent.messages) - set(counts)
        twice = [m for m, n in counts.items() if n > 1]
        per_sender: dict[int, list[int]] = defaultdict(list)
        for message_id in ids:
            if message_id in sent.messages:
                number, sequence = sent.messages[message_id]
                per_sender[number].append(sequence)
        out_of_order = sum(seqs != sorted(seqs) for seqs in per_sender.values())
        if missing or twice or out_of_order or waiter.event_ids != sorted(waiter.event_ids):
            problems.append(f"queue {waiter.queue_id}: {len(missing)} missing, {len(twice)} "
                            f"twice, {out_of_order} senders out of order")
        delays += [at - sent.acked_at[m] for m, at in waiter.received if m in sent.acked_at]
    server_errors = {k: n for k, n in stats.statuses.items() if k[1] >= 500 or k[1] == 0}
    events = sum(len(w.received) for w in waiters)
    pace = f" at {args.rate:g} messages/s" if args.rate > 0 else " as fast as answered"
    print(f"\nload: {args.senders} senders{pace}, {args.waiters} waiting clients, "
          f"{send_seconds:.0f} s of sending (then {drained_after:.1f} s to drain)")
    print(f"  throughput: {len(sent.messages) / send_seconds:.1f} messages/s acknowledged, "
          f"{events / (send_seconds + drained_after):.0f} events/s delivered "
          f"({len(sent.messages)} messages x {len(waiters)} queues)")
    print(f"  {'endpoint':<16} {'requests':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for endpoint, values in sorted(stats.latencies.items()):
        print(f"  {endpoint:<16} {len(values):>8} {percentile(values, .5) * 1000:>8.0f} "
              f"{percentile(values, .95) * 1000:>8.0f} {percentile(values, .99) * 1000:>8.0f}")
    print(f"  {'send -> event':<16} {len(delays):>8} {percentile(delays, .5) * 1000:>8.0f} "
          f"{percentile(delays, .95) * 1000:>8.0f} {percentile(delays, .99) * 1000:>8.0f}"
          "   (delivery delay to every waiting client)")
    print(f"  statuses: {dict(Counter({f'{e} {s}': n for (e, s), n in stats.statuses.items()}))}")
    print(f"  5xx or no answer: {sum(server_errors.values())} {dict(stats.errors) or ''}")
    print("  saturates first: " + saturation(meter, delays, stats, len(waiters)))
    for problem in problems[:10]:
        print("  PROBLEM " + problem)
    ok = not problems and not server_errors and bool(sent.messages)
    print("  every acknowledged message reached every queue once and in order: "
          + ("yes" if not problems else f"NO ({len(problems)} queues)"))
    return 0 if ok else 1


def saturation(meter: CpuMeter | None, delays: list[float], stats: Stats,
               waiters: int) -> str:
    """Names the bottleneck from what was measured: a stack process's CPU (one
    interpreter lock each: at most one core), the fan-out's delay, or request latency."""
    send = stats.latencies.get("POST /messages", [])
    parts = []
    if meter:
        parts.append("CPU of one core on average (peak): " + ", ".join(
            f"{name} {statistics.mean(samples):.0%} ({max(samples):.0%})"
            for name, samples in meter.samples.items() if samples))
    parts.append(f"delivery delay p95 {percentile(delays, .95) * 1000:.0f} ms against send "
                 f"p95 {percentile(send, .95) * 1000:.0f} ms")
    waits = len(stats.latencies.get("GET /events", []))
    check = float(os.environ.get("LONGPOLL_CHECK_SECONDS", "5"))
    parts.append(f"{waiters} waiting clients sleep on their wake queues (SQS), each woken "
                 f"by an append and re-checking its queue every {check:g} s otherwise "
                 f"({waits} long-polls answered)")
    verdict = ("event delivery (the fan-out into every waiting queue, then each woken "
               "client's read): events wait far longer than sends take"
               if percentile(delays, .95) > 2 * percentile(send, .95) else
               "one of the stack's processes (CPU bound under its interpreter lock)"
               if meter and meter.busiest() > 0.85 else
               "request handling (sends slow down before delivery does)")
    parts.append(f"machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return f"{verdict}; {'; '.join(parts)}"


if __name__ == "__main__":
    raise SystemExit(main())
