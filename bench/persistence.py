"""The local stack's persistence at 100,000 messages: how long it stalls requests.

Run: .venv/bin/python -m bench.persistence [--messages 100000]   (part of `make bench`)

Starts moto as `make run` does (the patched backend, the journal, the tables of
infra/template.json, the moto server on HTTP), fills it with messages as sending them
leaves them (a message item, its outbox record with the event and its stream record),
each write journaled. Then a client keeps writing and reading over HTTP while
checkpoints fold the journal into a snapshot, and the run prints:

- the longest request during checkpoints against the longest without them, and the
  longest time persistence itself held the write lock (a journal append, a rotation);
- what a checkpoint costs off the request path (the separate process's wall time,
  the snapshot's size) and how long a restart takes to restore;
- before: what the former 30-second snapshot held the write lock for at this size
  (pickling every backend in the serving process), which stalled every write.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import bench.common  # noqa: F401 - sets the bench environment first

PREFIX = "persist-"
CONTENT = ("Deploying the fan-out at 15:00; please hold merges until the canary is green. "
           "The dashboard is in the usual place, and the rollback plan is in the runbook.")


def start(state: Path) -> tuple[object, object, str]:
    import logging

    from moto.server import ThreadedMotoServer

    from infra import moto_patches
    from infra.local import environment, snapshot
    from infra.local.environment import free_port
    from infra.resources import create_all

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    moto_patches.apply()
    restored = snapshot.restore(state)
    persistence = snapshot.Persistence(state, restored)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
    environment.configure(url, PREFIX)
    create_all(PREFIX)
    return persistence, server, url


def fill(count: int) -> float:
    """Writes `count` messages with their outbox records straight into the backend (in
    process: filling over HTTP would take an hour), through the journaled methods."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    started = time.perf_counter()
    for n in range(1, count + 1):
        text = f"{CONTENT} ({n})"
        backend.put_item(PREFIX + "messages", {
            "realm_id": {"N": "1"}, "message_id": {"N": str(n)}, "sender_id": {"N": "3"},
            "type": {"S": "stream"}, "stream_id": {"N": "1"}, "topic": {"S": f"t{n % 50}"},
            "stream_key": {"S": "1#1"}, "topic_key": {"S": f"1#1#t{n % 50}"},
            "content": {"S": text}, "rendered_content": {"S": f"<p>{text}</p>"},
            "date_sent": {"N": str(1_700_000_000 + n)}, "client": {"S": "API"},
            "recipient_id": {"N": "7"}, "version": {"N": "1"}})
        backend.put_item(PREFIX + "outbox", {
            "outbox_id": {"S": f"o-{n:09d}"}, "realm_id": {"N": "1"},
            "event": {"S": json.dumps({"type": "message", "message": {
                "id": n, "content": f"<p>{text}</p>", "sender_id": 3, "stream_id": 1,
                "subject": f"t{n % 50}"}})},
            "audience": {"S": json.dumps({"stream": 1, "public": True})},
            "expires_at": {"N": str(1_700_086_400 + n)}})
    return time.perf_counter() - started


def old_snapshot_lock_seconds() -> float:
    """What the former snapshot held the write lock for: pickling every backend."""
    from infra import moto_patches
    from infra.local import effects, snapshot

    effects.register_lock_reducers()
    started = time.perf_counter()
    with moto_patches.write_lock():
        pickle.dumps({name: dict(backend) for name, backend in snapshot._backends().items()},
                     protocol=pickle.HIGHEST_PROTOCOL)
    return time.perf_counter() - started


class GcPauses:
    """The serving process's pauses for collections of the oldest generation."""

    def __init__(self) -> None:
        import gc

        self.longest, self.count, self._started = 0.0, 0, 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.count += 1
            self.longest = max(self.longest, time.perf_counter() - self._started)


class Prober(threading.Thread):
    """Writes and reads one small item over HTTP in a loop, timing each request."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        import boto3

        self.client = boto3.client("dynamodb")
        self.samples: list[tuple[float, float]] = []   # (when, seconds)
        self.stop = threading.Event()

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            key = {"scope": {"S": f"probe-{n % 100}"}}
            for call in (lambda: self.client.put_item(TableName=PREFIX + "counters", Item={
                    **key, "value": {"N": str(n)}}),   # noqa: B023 - called at once
                    lambda: self.client.get_item(TableName=PREFIX + "counters",
                                                 Key=key)):   # noqa: B023
                started = time.perf_counter()
                call()
                self.samples.append((started, time.perf_counter() - started))
            time.sleep(0.002)

    def longest(self, start: float, end: float) -> float:
        return max((s for at, s in self.samples if start <= at <= end), default=0.0)

    def p99(self, start: float, end: float) -> float:
        values = sorted(s for at, s in self.samples if start <= at <= end)
        return values[int(0.99 * (len(values) - 1))] if values else 0.0


def restore_seconds(state: Path) -> float:
    code = ("import time; t = time.perf_counter(); from infra.local import snapshot; "
            f"snapshot.restore(__import__('pathlib').Path({str(state)!r})); "
            "print(time.perf_counter() - t)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return float(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--checkpoints", type=int, default=3)
    args = parser.parse_args()
    state = Path(tempfile.mkdtemp(prefix="teamchat-persistence-"))
    persistence, server, _ = start(state)
    fill_seconds = fill(args.messages)
    journal_bytes = persistence.journal.bytes_written
    print(f"persistence at {args.messages:,} messages ({2 * args.messages:,} items, "
          f"{args.messages:,} stream records); filled in {fill_seconds:.0f} s, journal "
          f"{journal_bytes / 2**20:.0f} MB")
    pauses = GcPauses()
    prober = Prober()
    prober.start()
    time.sleep(5)
    quiet = (time.perf_counter() - 5, time.perf_counter())
    checkpoint_walls = []
    busy_start = time.perf_counter()
    for _ in range(args.checkpoints):
        started = time.perf_counter()
        persistence.checkpoint()
        persistence.wait()
        checkpoint_walls.append(time.perf_counter() - started)
    busy = (busy_start, time.perf_counter())
    prober.stop.set()
    prober.join()
    old_lock = old_snapshot_lock_seconds()
    snapshot_mb = (state / "moto-backends.pickle").stat().st_size / 2**20
    restore = restore_seconds(state)
    print(f"  requests (PutItem/GetItem over HTTP) without a checkpoint: longest "
          f"{prober.longest(*quiet) * 1000:.0f} ms, p99 "
          f"{prober.p99(*quiet) * 1000:.0f} ms")
    print(f"  requests during {args.checkpoints} checkpoints: longest "
          f"{prober.longest(*busy) * 1000:.0f} ms, p99 {prober.p99(*busy) * 1000:.0f} ms")
    slow = persistence.journal.slow_appends
    print(f"  write lock held by persistence: longest journal append "
          f"{persistence.journal.longest_append * 1000:.2f} ms (of "
          f"{persistence.journal.records:,}: {slow[0.001]:,} over 1 ms, {slow[0.01]:,} over "
          f"10 ms, {slow[0.1]:,} over 100 ms; longest write() "
          f"{persistence.journal.longest_write * 1000:.2f} ms); longest journal rotation "
          f"{persistence.longest_rotation * 1000:.3f} ms")
    print(f"  longest garbage-collection pause of the serving process: "
          f"{pauses.longest * 1000:.0f} ms ({pauses.count} collections of the oldest "
          "generation)")
    print(f"  (this machine's load average while measuring: {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs)")
    print(f"  a checkpoint (separate process) takes {statistics.median(checkpoint_walls):.1f} s"
          f" of wall time; snapshot {snapshot_mb:.0f} MB; a restart restores in "
          f"{restore:.1f} s")
    print(f"  before (pickling in the serving process every 30 s): the write lock was held "
          f"{old_lock * 1000:.0f} ms per snapshot at this size, stalling every write")
    server.stop()


if __name__ == "__main__":
    main()
