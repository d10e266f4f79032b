"""The fan-out of one message to 100, 1,000 and 10,000 connected queues (issue 23).

Run: .venv/bin/python -m bench.fanout_scale [--database-process] [sizes...]

By default moto runs in this process, so every request costs this process's CPU and
requests made side by side cannot overlap. With --database-process moto runs as the
local stack's database process (bench/common.py), closer to DynamoDB's shape: the
fan-out's concurrent requests overlap with each other and with moto's work.

For each size: a channel of that many subscribers, each with a connected queue; one
message sent through the API; the stream batch handed to the real fan-out handler. Its
wall time and DynamoDB requests and write units are printed against raw BatchWriteItem
of the same chunk items (bench/event_fanout.raw_writes) in the same run, with the time
split into the batch's phases (subscribers and flags, queues and forms, recipients'
state, appends). Two
messages per size: for the first, a queue's tail is known only if its connect marker
was appended more than the dedup window (10 s) before (delivery/append.py TailCache,
else a Query per queue); then five warm fan-outs (every tail known), each against raw
writes: their medians are what the wall-time ratios compare.
"""
from __future__ import annotations

import gc
import itertools
import os
import statistics
import sys
import time
from collections import defaultdict
from typing import Any

from bench.common import (
    RequestCounter,
    bench_realm,
    database_process_backend,
    form_headers,
    moto_backend,
)
from bench.event_fanout import Channel, measure, raw_writes

SIZES = (100, 1000, 10_000)
WARM_RUNS = 5


class PhaseClock:
    """Times the fan-out batch's phases by wrapping its methods."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def wrap(self, owner: Any, name: str, phase: str) -> None:
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[phase] += time.perf_counter() - started

        setattr(owner, name, timed)


def main(sizes: tuple[int, ...], database_process: bool = False) -> None:
    os.environ.setdefault("WEBSOCKET_MANAGEMENT_URL",
                          "https://bench.execute-api.us-east-1.amazonaws.com/chat")
    counter = RequestCounter()
    counter.install()
    with database_process_backend() if database_process else moto_backend():
        from chalice.test import Client

        from app import app
        from chalicelib.delivery import push
        from chalicelib.fanout import batch as fanout
        from infra.local.stream_drain import OutboxDrain

        push.send_events = lambda *args, **kwargs: True   # no socket server in-process
        clock = PhaseClock()
        clock.wrap(fanout.FanoutBatch, "note", "subscribers, flags")
        clock.wrap(fanout.FanoutBatch, "address", "queues, forms")
        clock.wrap(fanout.RecipientStep, "flush", "recipients' state")
        clock.wrap(fanout.FanoutBatch, "_flush_queues", "queue appends")
        realm, _, owner_key = bench_realm()
        owner = form_headers("o@bench.example.com", owner_key)
        drain = OutboxDrain()
        print("Fan-out of one message to N connected queues (" + (
            "moto in its own process)" if database_process else "in-process moto, one process)"))
        times: dict[int, float] = {}
        with Client(app) as client:
            for i, size in enumerate(sizes):
                started = time.perf_counter()
                channel = Channel(client.http, owner, realm.realm_id, f"scale{size}",
                                  size + 1, 100_000 * (i + 1), True)
                drain()
                print(f"\n{size:,} queues (set up in {time.perf_counter() - started:.0f} s)")
                # moto's items live in this process: out of the collector's sight, as
                # the local stack keeps them (snapshot._freeze_heap), or its full
                # collections land in random phases of the fan-out.
                gc.collect()
                gc.freeze()
                for label, runs in (("first message", 1), ("warm messages", WARM_RUNS)):
                    measured = []
                    for _ in range(runs):
                        channel.send(1)
                        clock.seconds.clear()
                        cost = measure(counter, drain)
                        # BatchWriteItem alone: a PutItem per item too would add
                        # 60,000 requests at 10,000 queues and nothing to the figures.
                        _, raw = raw_writes(counter, channel.queue_ids, one_by_one=False)
                        measured.append((cost, raw, dict(clock.seconds)))
                    cost, raw, phases = sorted(measured, key=lambda m: m[0].seconds)[runs // 2]
                    raw_seconds = statistics.median(m[1].seconds for m in measured)
                    times[size] = cost.seconds
                    print(f"   {label} (median of {runs}): fan-out {cost.seconds * 1000:,.0f}"
                          f" ms, {cost.dynamodb_requests:,} DynamoDB requests, "
                          f"{cost.write:,.0f} WRU; raw BatchWriteItem "
                          f"{raw_seconds * 1000:,.0f} ms, {raw.dynamodb_requests:,} requests,"
                          f" {raw.write:,.0f} WRU -> {cost.seconds / raw_seconds:.1f}x time, "
                          f"{cost.write / raw.write:.2f}x WRU")
                    print("      phases: " + ", ".join(
                        f"{phase} {seconds * 1000:,.0f} ms" for phase, seconds in phases.items()))
        if len(times) > 1:
            ordered = sorted(times)
            for smaller, larger in itertools.pairwise(ordered):
                print(f"\nwall time {larger:,} / {smaller:,} queues: "
                      f"{times[larger] / times[smaller]:.2f}x "
                      f"(audience {larger / smaller:.0f}x)")


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:] if a.isdigit()) or SIZES,
         database_process="--database-process" in sys.argv[1:])
