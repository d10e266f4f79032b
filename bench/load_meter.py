"""What the load bench measures of the stack's processes: CPU from /proc (sampled every
second, for the saturation verdict, and as totals over a window) and the stage meter's
figures (infra/local/stage_meter.py: CPU and AWS requests by stage, per process)."""
from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TICKS = os.sysconf("SC_CLK_TCK")
APP_PROCESSES = ("API", "workers")   # the app's own; the database stands for DynamoDB


def process_cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:   # it has ended
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def stack_processes(pid: int | None) -> dict[str, int]:
    """The stack's processes by role: the API (`pid`) and its children (the database,
    the workers: infra/local/database.py, workers.py)."""
    if pid is None:
        return {}
    found = {"API": pid}
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


class CpuMeter:
    """CPU used by the stack's processes and by this one, sampled every second."""

    def __init__(self, pid: int | None) -> None:
        # This process too: the clients share the machine's cores with the stack.
        self.processes = {**stack_processes(pid), "load clients": os.getpid()}
        self.samples: dict[str, list[float]] = {name: [] for name in self.processes}

    def totals(self) -> dict[str, float]:
        return {name: process_cpu_seconds(pid) for name, pid in self.processes.items()}

    def sample(self, stop: threading.Event) -> None:
        last, last_at = self.totals(), time.monotonic()
        while not stop.wait(1.0):
            now, now_at = self.totals(), time.monotonic()
            for name in self.processes:
                self.samples[name].append((now[name] - last[name]) / (now_at - last_at))
            last, last_at = now, now_at

    def busiest(self) -> float:
        return max((max(s) for name, s in self.samples.items()
                    if s and name != "load clients"), default=0.0)


@dataclass
class StageFigures:
    """CPU seconds and AWS requests by stage over a window, the API's and workers'."""

    cpu: Counter[str] = field(default_factory=Counter)
    requests: Counter[str] = field(default_factory=Counter)    # "stage|service.Op"

    def requests_by_stage(self) -> Counter[str]:
        totals: Counter[str] = Counter()
        for key, count in self.requests.items():
            totals[key.split("|", 1)[0]] += count
        return totals

    def dynamodb_requests(self) -> int:
        return sum(n for key, n in self.requests.items()
                   if key.split("|", 1)[1].startswith(("dynamodb.", "dynamodbstreams.")))

    def all_requests(self) -> int:
        return sum(self.requests.values())


def read_stage_meters(state: Path, newer_than: float, timeout: float = 10.0
                      ) -> dict[str, dict[str, Any]]:
    """The stage meters' files once both were written after `newer_than` (epoch)."""
    deadline = time.monotonic() + timeout
    while True:
        found: dict[str, dict[str, Any]] = {}
        for role in ("api", "workers"):
            try:
                data = json.loads((state / f"stage-meter-{role}.json").read_text())
            except (OSError, ValueError):
                continue
            if data["at"] > newer_than:
                found[role] = data
        if len(found) == 2 or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def stage_delta(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]
                ) -> StageFigures:
    figures = StageFigures()
    for role, end in after.items():
        start = before.get(role, {"cpu": {}, "requests": {}})
        for stage, seconds in end["cpu"].items():
            figures.cpu[stage] += seconds - start["cpu"].get(stage, 0.0)
        for key, count in end["requests"].items():
            figures.requests[key] += count - start["requests"].get(key, 0)
    return figures
