"""The fan-out of one message to a channel of 1,000 and of 10,000 people, each reader
with a connected queue, invocation by invocation (issue 41): each invocation's DynamoDB
requests, items read and written, and busy time (CPU); the critical path (the longest
chain of invocations that wait on one another) and the largest single invocation; and
a modelled wall time on AWS.

These figures do not depend on the machine's cores: every slice runs here, one after
another, with moto in a process of its own (bench/common.py), so this process's CPU is
the fan-out's own work. On Lambda the slices run at once, each on its own invocation.

Run: .venv/bin/python -m bench.fanout_invocations [sizes...]   (default 1000 10000)
"""
from __future__ import annotations

import gc
import math
import os
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from bench.common import RequestCounter, database_process_backend, form_headers
from bench.event_fanout import Channel

SIZES = (1000, 10_000)
RUNS = 3
# The model: a request's latency on DynamoDB (ms), and how many a function sends at once.
LATENCY_MS = {"Query": 6, "GetItem": 4, "BatchGetItem": 10, "BatchWriteItem": 12,
              "BatchExecuteStatement": 15, "TransactWriteItems": 18, "PutItem": 6,
              "UpdateItem": 6, "DeleteItem": 6, "TransactGetItems": 8}
IN_FLIGHT = 16                 # the fan-out's append pool
INVOKE_MS = 30                 # a synchronous invoke of a warm function, there and back
LAMBDA_CPU_SHARE = 512 / 1769  # 512 MB is this share of a vCPU
# The limits the model is held to: DynamoDB's per physical partition (a key's items stay
# on one), an on-demand table's first partitions, and the executions reserved for the
# fan-out (FanoutConcurrency in infra/template.json; one goes to the stream shard).
PARTITION_WCU, PARTITION_RCU = 1000, 3000
NEW_TABLE_PARTITIONS = 4
FANOUT_CONCURRENCY = 12


@dataclass
class Invocation:
    kind: str                   # batch, range, queues, rows
    depth: int
    requests: dict[str, int] = field(default_factory=dict)
    items_read: int = 0
    items_written: int = 0
    cpu_s: float = 0.0
    wall_s: float = 0.0
    read_units: float = 0.0
    write_units: float = 0.0
    children: list[Invocation] = field(default_factory=list)

    @property
    def request_count(self) -> int:
        return sum(self.requests.values())

    def modelled_ms(self) -> float:
        """CPU at Lambda's share for 512 MB, plus the requests' latency over IN_FLIGHT."""
        waiting = sum(LATENCY_MS.get(op, 8) * n for op, n in self.requests.items())
        return self.cpu_s * 1000 / LAMBDA_CPU_SHARE + waiting / IN_FLIGHT

    def chain_ms(self) -> float:
        """The longest chain from here: this invocation, and the slowest child after an
        invoke, as if the child started only when this one had finished (an upper bound:
        the children start once the batch is planned, and the batch's own invocation
        then waits for them before it settles)."""
        return self.modelled_ms() + max((INVOKE_MS + c.chain_ms() for c in self.children),
                                        default=0.0)

    def path_length(self) -> int:
        return 1 + max((c.path_length() for c in self.children), default=0)

    def all(self) -> list[Invocation]:
        return [self, *(i for c in self.children for i in c.all())]


class ItemCounter:
    """Items read and written by DynamoDB calls (on top of bench.common's counter)."""

    def __init__(self) -> None:
        self.read = 0
        self.written = 0
        self._lock = threading.Lock()

    def install(self) -> None:
        import botocore.client

        original = botocore.client.BaseClient._make_api_call
        counter = self

        def counting(client: Any, operation: str, params: dict) -> Any:
            response = original(client, operation, params)
            if client.meta.service_model.service_name == "dynamodb":
                read, written = _items(operation, params, response)
                with counter._lock:
                    counter.read += read
                    counter.written += written
            return response

        botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]


def _items(operation: str, params: dict, response: dict) -> tuple[int, int]:
    if operation in ("Query", "Scan"):
        return len(response.get("Items", [])), 0
    if operation == "GetItem":
        return int("Item" in response), 0
    if operation == "BatchGetItem":
        return sum(len(v) for v in response.get("Responses", {}).values()), 0
    if operation == "BatchWriteItem":
        return 0, sum(len(v) for v in params["RequestItems"].values())
    if operation in ("TransactWriteItems", "BatchExecuteStatement"):
        return 0, len(params.get("TransactItems") or params.get("Statements") or [])
    if operation in ("PutItem", "UpdateItem", "DeleteItem"):
        return 0, 1
    return 0, 0


class Recorder:
    """Runs every slice at once where it is handed over (one after another), each
    measured as an invocation of its own; the batch's invocation is what is left."""

    def __init__(self, counter: RequestCounter, items: ItemCounter) -> None:
        self.counter, self.items = counter, items
        self.stack: list[Invocation] = []
        self.roots: list[Invocation] = []   # each stream batch's own invocation
        self.sizing_cpu = self.sizing_wall = 0.0

    def snapshot(self) -> tuple[dict[str, int], int, int, float, float, float, float]:
        calls = {op: n for (svc, op), n in self.counter.calls.items() if svc == "dynamodb"}
        # Sizing the calls' units is this bench's work: no invocation's time counts it.
        cpu, wall = time.process_time(), time.perf_counter()
        read, write = self.counter.units["read"], self.counter.units["write"]
        self.sizing_cpu += time.process_time() - cpu
        self.sizing_wall += time.perf_counter() - wall
        return calls, self.items.read, self.items.written, \
            time.process_time() - self.sizing_cpu, time.perf_counter() - self.sizing_wall, \
            read, write

    def run(self, kind: str, work: Any) -> Any:
        parent = self.stack[-1] if self.stack else None
        node = Invocation(kind, len(self.stack))
        (parent.children if parent is not None else self.roots).append(node)
        self.stack.append(node)
        before = self.snapshot()
        try:
            return work()
        finally:
            after = self.snapshot()
            self.stack.pop()
            node.requests = {op: n - before[0].get(op, 0) for op, n in after[0].items()
                             if n - before[0].get(op, 0)}
            node.items_read, node.items_written = after[1] - before[1], after[2] - before[2]
            node.cpu_s, node.wall_s = after[3] - before[3], after[4] - before[4]
            node.read_units, node.write_units = after[5] - before[5], after[6] - before[6]
            for child in node.children:   # what the children did is theirs, not this one's
                for op, n in child.requests.items():
                    node.requests[op] = node.requests.get(op, 0) - n
                node.items_read -= child.items_read
                node.items_written -= child.items_written
                node.cpu_s -= child.cpu_s
                node.wall_s -= child.wall_s
                node.read_units -= child.read_units
                node.write_units -= child.write_units
            node.requests = {op: n for op, n in node.requests.items() if n}


class InlinePool:
    """A stand-in for the slice pool: runs the slice when it is handed over."""

    def __init__(self, recorder: Recorder, kind: str) -> None:
        self.recorder, self.kind = recorder, kind

    def submit(self, function: Any, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(self.recorder.run(self.kind, lambda: function(*args)))
        except Exception as error:  # noqa: BLE001 - handed to the caller, as a pool would
            future.set_exception(error)
        return future


def install(recorder: Recorder) -> None:
    from chalicelib.fanout import audience_slices, slices, write_slices

    audience_slices.slice_pool = InlinePool(recorder, "range")  # type: ignore[assignment]
    slices.slice_pool = InlinePool(recorder, "queues")  # type: ignore[assignment]
    write_slices.slice_pool = InlinePool(recorder, "rows")  # type: ignore[assignment]


def within_limits(batch: Invocation, units: dict[tuple[str, str], float]
                  ) -> tuple[float, str]:
    """The modelled wall time held to the limits: the fan-out's reserved executions (all
    of a batch's invocations are alive at once, the batch waiting on its ranges: those
    that do not fit wait for a free one) and DynamoDB's partitions (each table's units
    over its first partitions: the fan-out writes each person's items under that
    person's keys, so no key gets more than a few writes per message), and what they are."""
    every = batch.all()
    free = FANOUT_CONCURRENCY - 1            # one execution is the shard's batch
    waves = max(1, math.ceil((len(every) - 1) / free)) if len(every) > 1 else 1
    ranges = max((INVOKE_MS + c.chain_ms() for c in batch.children), default=0.0)
    lambda_ms = batch.modelled_ms() + waves * ranges
    tables = {table for table, _ in units}
    floor_s = max((max(units.get((t, "write"), 0) / (NEW_TABLE_PARTITIONS * PARTITION_WCU),
                       units.get((t, "read"), 0) / (NEW_TABLE_PARTITIONS * PARTITION_RCU))
                   for t in tables), default=0.0)
    busiest = max(tables, key=lambda t: units.get((t, "write"), 0), default="-")
    text = (f"   limits: {len(every)} executions at once of FanoutConcurrency "
            f"{FANOUT_CONCURRENCY} ({waves} wave(s) of ranges); DynamoDB "
            f"{sum(v for (_, k), v in units.items() if k == 'write'):,.0f} WCU and "
            f"{sum(v for (_, k), v in units.items() if k == 'read'):,.0f} RCU in all, the most "
            f"on {busiest} ({units.get((busiest, 'write'), 0):,.0f} WCU): at "
            f"{PARTITION_WCU:,} WCU / {PARTITION_RCU:,} RCU per partition over an on-demand "
            f"table's first {NEW_TABLE_PARTITIONS} partitions that takes at least "
            f"{floor_s * 1000:,.0f} ms")
    return max(lambda_ms, floor_s * 1000), text


def report(size: int, batch: Invocation, units: dict[tuple[str, str], float]
           ) -> dict[str, Any]:
    every = batch.all()
    largest = max(every, key=lambda i: (i.request_count, i.cpu_s))
    limited, limits = within_limits(batch, units)
    print(f"\n{size:,} people: {len(every)} invocation(s), critical path "
          f"{batch.path_length()} invocation(s), modelled wall time on AWS "
          f"{batch.chain_ms():,.0f} ms ({limited:,.0f} ms held to the limits below)")
    print(f"   {'invocation':<12} {'requests':>8} {'items read':>10} {'written':>8} "
          f"{'CPU ms':>7} {'wall ms':>8} {'model ms':>8}  requests by operation")
    for n, inv in enumerate(every):
        label = f"{'  ' * inv.depth}{inv.kind}{'' if inv.depth == 0 else f' {n}'}"
        print(f"   {label:<12} {inv.request_count:>8,} {inv.items_read:>10,} "
              f"{inv.items_written:>8,} {inv.cpu_s * 1000:>7,.0f} {inv.wall_s * 1000:>8,.0f} "
              f"{inv.modelled_ms():>8,.0f}  "
              + ", ".join(f"{op} {n}" for op, n in sorted(inv.requests.items())))
    print(limits)
    return {"invocations": len(every), "path": batch.path_length(),
            "largest_requests": largest.request_count,
            "largest_items": largest.items_read + largest.items_written,
            "largest_cpu_ms": largest.cpu_s * 1000, "model_ms": batch.chain_ms(),
            "limited_ms": limited}


def main(sizes: tuple[int, ...]) -> None:
    os.environ.setdefault("WEBSOCKET_MANAGEMENT_URL",
                          "https://bench.execute-api.us-east-1.amazonaws.com/chat")
    counter, items = RequestCounter(), ItemCounter()
    counter.install()
    items.install()
    recorder = Recorder(counter, items)
    summary: dict[int, list[dict[str, Any]]] = {}
    with database_process_backend():
        from chalice.test import Client

        from app import app
        from chalicelib.actions.users.users import NewUser
        from chalicelib.actions.workflows.realms import do_create_realm
        from chalicelib.delivery import push
        from infra.local.stream_drain import OutboxDrain

        push.send_events = lambda *args, **kwargs: True   # no socket server in-process
        install(recorder)
        drain = OutboxDrain()
        print("Fan-out of one message to a channel of N people (the sender and N - 1 "
              "readers, each with a connected queue), invocation by invocation (moto in "
              f"its own process; load {os.getloadavg()[0]:.1f})")
        with Client(app) as client:
            for size in sizes:
                started = time.perf_counter()
                # An organization each: the readers are its people 2 to N.
                realm, _, owner_key = do_create_realm(
                    f"Fan-out {size}", f"fanout{size}", NewUser(
                        email=f"o@fanout{size}.example.com", full_name="Owner", role=100))
                owner = form_headers(f"o@fanout{size}.example.com", owner_key)
                channel = Channel(client.http, owner, realm.realm_id, f"inv{size}",
                                  size, 2, True)
                drain()
                channel.send(1)   # warm: every queue's tail known afterwards
                drain()
                print(f"\n({size:,} people set up in {time.perf_counter() - started:.0f} s)")
                gc.collect()
                gc.freeze()
                for _ in range(RUNS):
                    channel.send(1)
                    before = counter.by_table.copy()
                    recorder.run("batch", drain)
                    units = {k: v - before.get(k, 0) for k, v in counter.by_table.items()
                             if v - before.get(k, 0)}
                    summary.setdefault(size, []).append(
                        report(size, recorder.roots[-1], units))
    _compare(summary)


def _compare(summary: dict[int, list[dict[str, Any]]]) -> None:
    if len(summary) < 2:
        return
    small, large = min(summary), max(summary)

    def median(size: int, key: str) -> float:
        values = sorted(run[key] for run in summary[size])
        return values[len(values) // 2]

    print(f"\n{large:,} against {small:,} people (medians of {RUNS} runs):")
    for key, label in (("largest_requests", "largest invocation's DynamoDB requests"),
                       ("largest_items", "largest invocation's items"),
                       ("largest_cpu_ms", "largest invocation's CPU ms"),
                       ("path", "critical path (invocations)"),
                       ("model_ms", "modelled wall time on AWS, ms"),
                       ("limited_ms", "the same held to the limits, ms")):
        print(f"   {label:<40} {median(small, key):>9,.0f} -> {median(large, key):>9,.0f}")


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:] if a.isdigit()) or SIZES)
