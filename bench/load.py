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
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import requests

from bench.load_clients import Sent, Stats, Waiter, percentile, sender
from bench.load_floor import FloorResult, run_floor
from bench.load_meter import CpuMeter, read_stage_meters, stage_delta
from bench.load_report import (
    Window,
    delivery,
    machine_load,
    per_event_lines,
    record,
    saturation,
    stage_lines,
)

DRAIN_SECONDS = 240.0   # after sending: the most the waiters get to receive the rest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--senders", type=int, default=20)
    parser.add_argument("--waiters", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=20.0,
                        help="messages a second from all senders (0: as fast as answers "
                             "come)")
    parser.add_argument("--floor-seconds", type=float, default=30.0)
    parser.add_argument("--no-floor", action="store_true")
    parser.add_argument("--record", help="append the run to this markdown file")
    parser.add_argument("--profile", action="store_true",
                        help="profile each stage's CPU (cProfile; slows the stack)")
    parser.add_argument("--url")
    args = parser.parse_args()

    stack = None
    if args.url:
        url = args.url.rstrip("/")
        state = Path(os.environ.get("LOCAL_STATE_DIR", ".local-state"))
        pid = None
    else:
        from infra.local.launcher import start_stack
        from infra.local.stage_meter import ENABLED_VARIABLE, PROFILE_VARIABLE

        state = Path(tempfile.mkdtemp(prefix="teamchat-load-")) / "state"
        state.mkdir()
        # A load test sends more than a person would: no per-user limit in the way.
        stack = start_stack(state, RATE_LIMITS=os.environ.get("RATE_LIMITS", "api_by_user=off"),
                            **{ENABLED_VARIABLE: "1"},
                            **({PROFILE_VARIABLE: "1"} if args.profile else {}))
        url, pid = stack.url, stack.process.pid
        print(f"local stack on {url} (started in {stack.startup_seconds:.1f} s)")
    accounts = {a["role"]: a for a in json.loads((state / "demo-accounts.json").read_text())}
    try:
        return run(url, pid, state, args, accounts)
    finally:
        if stack is not None:
            stack.stop()
            if args.profile:
                print(f"profiles: {state}/profile-*.prof (python -m pstats FILE)")
            else:
                shutil.rmtree(state.parent, ignore_errors=True)   # the stack's own


def run(url: str, pid: int | None, state: Path, args: argparse.Namespace,
        accounts: dict[str, dict[str, Any]]) -> int:
    loads = [machine_load()]
    stats, sent = Stats(), Sent()
    auths = [(a["email"], a["api_key"]) for a in accounts.values()]
    senders_auth = [(a["email"], a["api_key"]) for a in accounts.values()
                    if a["role"] != "guest"]
    owner = accounts["owner"]
    subscribed = requests.post(f"{url}/api/v1/users/me/subscriptions",
                               auth=(owner["email"], owner["api_key"]), timeout=30, data={
                                   "subscriptions": json.dumps([{"name": "load"}]),
                                   "principals": json.dumps(
                                       [a["user_id"] for a in accounts.values()])})
    assert subscribed.status_code == 200, subscribed.text  # nosec B101 # a bench's check
    waiters = [Waiter(url, auths[i % len(auths)]) for i in range(args.waiters)]
    for waiter in waiters:
        waiter.register(stats)
    stop_sending, stop_waiting, stop_meter = (threading.Event() for _ in range(3))
    meter = CpuMeter(pid)
    threading.Thread(target=meter.sample, args=(stop_meter,), daemon=True).start()
    waiting = [threading.Thread(target=w.run, args=(stop_waiting, stats), daemon=True)
               for w in waiters]
    interval = args.senders / args.rate if args.rate > 0 else 0.0
    sending = [threading.Thread(target=sender, args=(
        n, url, senders_auth[n % len(senders_auth)], stop_sending, stats, sent, interval,
        interval * n / args.senders), daemon=True) for n in range(args.senders)]
    for thread in waiting:
        thread.start()
    time.sleep(1.5)   # the waiters are waiting; the stage meters have written since
    stages_before = read_stage_meters(state, time.time() - 1.0) if pid else {}
    cpu_before = meter.totals()
    for thread in sending:
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
        time.sleep(0.2)
    drained_after = time.monotonic() - started - send_seconds
    cpu_after, ended_at = meter.totals(), time.time()
    stages_after = read_stage_meters(state, ended_at) if pid else {}
    stop_waiting.set()
    stop_meter.set()
    loads.append(machine_load())
    floor = None
    if pid and not args.no_floor:
        endpoint = json.loads((state / "endpoint.json").read_text())["aws_endpoint_url"]
        floor = run_floor(endpoint, meter.processes.get("database"), args.senders,
                          args.waiters, args.rate or 20.0, args.floor_seconds)
        loads.append(machine_load())
    window = Window({name: cpu_after[name] - cpu_before[name] for name in cpu_after},
                    stage_delta(stages_before, stages_after) if stages_after else None)
    return report(args, stats, sent, waiters, send_seconds, drained_after, meter, window,
                  floor, loads)


def report(args: argparse.Namespace, stats: Stats, sent: Sent, waiters: list[Waiter],
           send_seconds: float, drained_after: float, meter: CpuMeter, window: Window,
           floor: FloorResult | None, loads: list[str]) -> int:
    got = delivery(sent, waiters)
    server_errors = {k: n for k, n in stats.statuses.items() if k[1] >= 500 or k[1] == 0}
    pace = f" at {args.rate:g} messages/s" if args.rate > 0 else " as fast as answered"
    title = (f"load: {args.senders} senders{pace}, {args.waiters} waiting clients, "
             f"{send_seconds:.0f} s of sending (then {drained_after:.1f} s to drain)")
    lines = [f"  throughput: {len(sent.messages) / send_seconds:.1f} messages/s "
             f"acknowledged, {got.events / (send_seconds + drained_after):.0f} events/s "
             f"delivered ({len(sent.messages)} messages x {len(waiters)} queues)",
             f"  lost {got.lost}, duplicated {got.duplicated}, out of sender order "
             f"{got.out_of_order}; 5xx or no answer {sum(server_errors.values())} "
             f"{dict(stats.errors) or ''}",
             f"  {'endpoint':<16} {'requests':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}"]
    for endpoint, values in sorted(stats.latencies.items()):
        lines.append(f"  {endpoint:<16} {len(values):>8} {percentile(values, .5) * 1000:>8.0f} "
                     f"{percentile(values, .95) * 1000:>8.0f} "
                     f"{percentile(values, .99) * 1000:>8.0f}")
    delays = got.delays
    lines.append(f"  {'send -> event':<16} {len(delays):>8} {percentile(delays, .5) * 1000:>8.0f} "
                 f"{percentile(delays, .95) * 1000:>8.0f} {percentile(delays, .99) * 1000:>8.0f}"
                 "   (delivery delay to every waiting client)")
    send_p95 = percentile(stats.latencies.get("POST /messages", []), .95)
    lines += per_event_lines(got, window, floor, send_p95)
    if floor is not None:
        lines.append(f"  floor: {floor.messages} messages x {args.waiters} queues in "
                     f"{floor.seconds:.0f} s, lost {floor.lost}, duplicated "
                     f"{floor.duplicated}; requests "
                     + ", ".join(f"{k} {n / max(1, floor.events):.3f}/event"
                                 for k, n in floor.requests.most_common()))
    if window.stages is not None:
        lines += stage_lines(window.stages, got.events)
    lines.append("  CPU seconds in the window: " + ", ".join(
        f"{name} {seconds:.1f}" for name, seconds in window.cpu.items()))
    lines.append("  saturates first: " + saturation(meter, delays, stats, len(waiters)))
    lines.append(f"  machine: {' -> '.join(loads)}")
    lines += [f"  PROBLEM {problem}" for problem in got.problems[:10]]
    ok = not got.problems and not server_errors and bool(sent.messages)
    lines.append("  every acknowledged message reached every queue once and in order: "
                 + ("yes" if ok else f"NO ({len(got.problems)} queues)"))
    print(f"\n{title}\n" + "\n".join(lines))
    if args.record:
        record(Path(args.record), title, lines, loads)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
