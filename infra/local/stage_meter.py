"""Where a delivered event's CPU and AWS requests go on the local stack, by stage
(`bench.load` turns these into figures per delivered event).

Off unless `LOCAL_STAGE_METER` is set (the load bench sets it for the stack it starts).
Each of the API and workers processes then keeps, per stage, the CPU its threads spent
and the AWS requests they made, and writes them every second to
`<state>/stage-meter-<role>.json`:

- the API: a request's thread CPU (`time.thread_time`, from its start to its answer)
  and requests go to its route's stage: `send` (POST /messages), `read` (GET /events),
  `other API`;
- the workers: the stream poller's reads are `stream`; the fan-out's calls on the
  poller's thread and its pools are `fan-out`, except what they spend in the queue
  appends (`queue write`: chunk puts, PartiQL INSERTs, payloads) and the wake-ups
  (`wake`: SQS sends to wake queues), counted by request; a pool thread's CPU is read
  from /proc by thread and split by its pool's name.

The split of a pool's CPU between appends and wake-ups is not measured (they run on the
same threads): the requests are, and `bench.load` shows both.

With `LOCAL_STAGE_PROFILE` set too, each stage's work on the threads that enter it (a
request's, the stream poller's) runs under cProfile with a CPU clock, and the profiles
are written every 10 s to `<state>/profile-<role>-<stage>.prof` (`python -m pstats`).
"""
from __future__ import annotations

import cProfile
import json
import os
import pstats
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ENABLED_VARIABLE = "LOCAL_STAGE_METER"
PROFILE_VARIABLE = "LOCAL_STAGE_PROFILE"
PROFILE_EVERY_SECONDS = 10.0
WRITE_EVERY_SECONDS = 1.0
_TICKS = os.sysconf("SC_CLK_TCK")
# Pool threads by name prefix (chalicelib's ThreadPoolExecutor thread_name_prefix) to
# the stage their CPU counts for.
_POOL_STAGES = (("append", "queue write + wake"), ("recipients", "fan-out"),
                ("audiences", "fan-out"), ("batch-write", "fan-out"), ("slice", "fan-out"),
                ("sqs-poller", "notifier, webhooks"), ("schedule", "other workers"))
_WAKE_MARK = "wake"


def enabled() -> bool:
    return bool(os.environ.get(ENABLED_VARIABLE))


class StageMeter:
    """CPU seconds and AWS requests by stage in one process."""

    def __init__(self, role: str, state_dir: Path) -> None:
        self.role, self.path = role, state_dir / f"stage-meter-{role}.json"
        self.cpu: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()   # "stage|service.Operation"
        self._local = threading.local()
        self._lock = threading.Lock()
        self.profiling = bool(os.environ.get(PROFILE_VARIABLE))
        self._profiles: dict[str, list[cProfile.Profile]] = {}

    # ---- stages ------------------------------------------------------------------------

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """The current thread's work in the block counts for `name` (CPU and requests)."""
        outer = getattr(self._local, "stage", None)
        self._local.stage = name
        profile = cProfile.Profile(time.thread_time) if self.profiling and outer is None \
            else None
        started = time.thread_time()
        if profile is not None:
            profile.enable()
        try:
            yield
        finally:
            if profile is not None:
                profile.disable()
                with self._lock:
                    self._profiles.setdefault(name, []).append(profile)
            spent = time.thread_time() - started
            self._local.stage = outer
            with self._lock:
                self.cpu[name] += spent
                if outer is not None:   # the outer stage's clock also ran: not twice
                    self.cpu[outer] -= spent

    def current(self) -> str:
        stage = getattr(self._local, "stage", None)
        if stage is not None:
            return str(stage)
        return _pool_stage(threading.current_thread().name) or f"other {self.role}"

    def count_call(self, service: str, operation: str, params: dict[str, Any]) -> None:
        stage = self.current()
        if service == "sqs" and operation.startswith("SendMessage") and \
                _WAKE_MARK in str(params.get("QueueUrl", "")):
            stage = "wake"
        elif self.role == "workers" and _is_queue_write(operation, params):
            stage = "queue write"
        elif stage == "queue write + wake":
            stage = "fan-out"
        with self._lock:
            self.requests[f"{stage}|{service}.{operation}"] += 1

    # ---- reporting ---------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            cpu = dict(self.cpu)
            requests = dict(self.requests)
        for stage, seconds in _pool_cpu().items():
            cpu[stage] = cpu.get(stage, 0.0) + seconds
        return {"role": self.role, "at": time.time(), "process_cpu": time.process_time(),
                "cpu": cpu, "requests": requests}

    def write_profiles(self) -> None:
        with self._lock:
            profiles, self._profiles = self._profiles, {}
        for stage, taken in profiles.items():
            path = self.path.parent / f"profile-{self.role}-{stage.replace(' ', '-')}.prof"
            stats = pstats.Stats(*taken) if not path.exists() else pstats.Stats(str(path), *taken)
            stats.dump_stats(str(path))

    def write_forever(self) -> None:
        profiled_at = time.monotonic()
        while True:
            time.sleep(WRITE_EVERY_SECONDS)
            if self.profiling and time.monotonic() - profiled_at > PROFILE_EVERY_SECONDS:
                self.write_profiles()
                profiled_at = time.monotonic()
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text(json.dumps(self.snapshot()))
            temporary.replace(self.path)


def _pool_stage(thread_name: str) -> str | None:
    return next((stage for prefix, stage in _POOL_STAGES if thread_name.startswith(prefix)),
                None)


def _is_queue_write(operation: str, params: dict[str, Any]) -> bool:
    """The appends' writes: a queue's chunks (PutItem, PartiQL INSERTs) and payloads."""
    if operation == "BatchExecuteStatement":
        return True
    table = str(params.get("TableName", ""))
    if operation == "PutItem":
        return table.endswith(("queue_events", "event_payloads"))
    if operation == "BatchWriteItem":
        return any(name.endswith("event_payloads") for name in params.get("RequestItems", {}))
    return False


# Pool threads live as long as the process: their CPU is read whole, by thread.
_pool_seen: dict[int, tuple[str, float]] = {}


def _pool_cpu() -> dict[str, float]:
    for thread in threading.enumerate():
        stage = _pool_stage(thread.name)
        if stage is None or thread.native_id is None:
            continue
        try:
            fields = Path(f"/proc/self/task/{thread.native_id}/stat").read_text() \
                .rsplit(")", 1)[1].split()
        except OSError:
            continue
        _pool_seen[thread.native_id] = (stage, (int(fields[11]) + int(fields[12])) / _TICKS)
    totals: Counter[str] = Counter()
    for stage, seconds in _pool_seen.values():
        totals[stage] += seconds
    return dict(totals)


_meter: StageMeter | None = None


def install(role: str, state_dir: Path) -> StageMeter | None:
    """Starts the meter in this process when enabled: counts every botocore call, and
    writes the figures every second."""
    global _meter
    if not enabled() or _meter is not None:
        return _meter
    import botocore.client

    meter = _meter = StageMeter(role, state_dir)
    original: Callable[..., Any] = botocore.client.BaseClient._make_api_call

    def counting(client: Any, operation: str, params: dict[str, Any]) -> Any:
        meter.count_call(client.meta.service_model.service_name, operation, params)
        return original(client, operation, params)

    botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]
    threading.Thread(target=meter.write_forever, name="stage-meter", daemon=True).start()
    return meter


@contextmanager
def stage(name: str) -> Iterator[None]:
    """The meter's stage when it is on; nothing otherwise."""
    if _meter is None:
        yield
        return
    with _meter.stage(name):
        yield
