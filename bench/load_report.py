"""What the load bench prints: correctness (lost, duplicated, out of sender order),
latency, what saturated, and the figures per delivered event beside the floor's."""
from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from bench.load_clients import Sent, Stats, Waiter, percentile
from bench.load_floor import FloorResult
from bench.load_meter import APP_PROCESSES, CpuMeter, StageFigures

STAGES = ("send", "stream", "fan-out", "queue write", "wake", "queue write + wake", "read",
          "notifier, webhooks", "other API", "other workers")


@dataclass
class Delivery:
    """What the waiting clients received against what was acknowledged."""

    events: int
    delays: list[float]
    lost: int
    duplicated: int
    out_of_order: int       # (queue, sender) pairs whose messages came out of order
    problems: list[str]


def delivery(sent: Sent, waiters: list[Waiter]) -> Delivery:
    problems: list[str] = []
    delays: list[float] = []
    lost = duplicated = out_of_order = 0
    for waiter in waiters:
        ids = [m for m, _ in waiter.received]
        counts = Counter(ids)
        missing = set(sent.messages) - set(counts)
        twice = sum(n - 1 for n in counts.values() if n > 1)
        per_sender: dict[int, list[int]] = defaultdict(list)
        for message_id in ids:
            if message_id in sent.messages:
                number, sequence = sent.messages[message_id]
                per_sender[number].append(sequence)
        disordered = sum(seqs != sorted(seqs) for seqs in per_sender.values())
        lost, duplicated, out_of_order = (lost + len(missing), duplicated + twice,
                                          out_of_order + disordered)
        if missing or twice or disordered or waiter.event_ids != sorted(waiter.event_ids):
            problems.append(f"queue {waiter.queue_id}: {len(missing)} missing, {twice} "
                            f"twice, {disordered} senders out of order")
        delays += [at - sent.acked_at[m] for m, at in waiter.received if m in sent.acked_at]
    return Delivery(sum(len(w.received) for w in waiters), delays, lost, duplicated,
                    out_of_order, problems)


@dataclass
class Window:
    """The measured window's costs: CPU by process, and the stage meter's figures."""

    cpu: dict[str, float]            # seconds, by process (API, workers, database, ...)
    stages: StageFigures | None


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def ratio(value: float, floor: float) -> str:
    return f"{value / floor:.1f}x" if floor > 0 else "-"


def per_event_lines(got: Delivery, window: Window, floor: FloorResult | None,
                    send_p95: float) -> list[str]:
    """The figures that compare across machines, each beside the floor's."""
    events = max(1, got.events)
    app_cpu = sum(window.cpu.get(p, 0.0) for p in APP_PROCESSES)
    database_cpu = window.cpu.get("database", 0.0)
    rows: list[tuple[str, float, float | None, str]] = [
        ("delivery p50 (ms)", percentile(got.delays, .5) * 1000,
         percentile(floor.delays, .5) * 1000 if floor else None, "{:,.0f}"),
        ("delivery p95 (ms)", percentile(got.delays, .95) * 1000,
         percentile(floor.delays, .95) * 1000 if floor else None, "{:,.0f}"),
        ("delivery p99 (ms)", percentile(got.delays, .99) * 1000,
         percentile(floor.delays, .99) * 1000 if floor else None, "{:,.0f}"),
        ("POST /messages p95 (ms)", send_p95 * 1000, None, "{:,.0f}"),
        ("app CPU ms per event", app_cpu * 1000 / events,
         floor.cpu_seconds * 1000 / max(1, floor.events) if floor else None, "{:.3f}"),
        ("database CPU ms per event", database_cpu * 1000 / events,
         floor.database_cpu_seconds * 1000 / max(1, floor.events) if floor else None,
         "{:.3f}"),
    ]
    if window.stages is not None:
        rows += [("DynamoDB requests per event", window.stages.dynamodb_requests() / events,
                  floor.dynamodb_requests() / max(1, floor.events) if floor else None,
                  "{:.3f}"),
                 ("AWS requests per event", window.stages.all_requests() / events,
                  sum(floor.requests.values()) / max(1, floor.events) if floor else None,
                  "{:.3f}")]
    lines = [f"  {'per delivered event':<28} {'app':>10} {'floor':>10} {'ratio':>7}"]
    for label, value, base, form in rows:
        shown = form.format(base) if base is not None else "-"
        lines.append(f"  {label:<28} {form.format(value):>10} {shown:>10} "
                     f"{ratio(value, base) if base else '-':>7}")
    return lines


def stage_lines(stages: StageFigures, events: int) -> list[str]:
    """Per stage: CPU ms and requests per delivered event, and the requests' kinds."""
    events = max(1, events)
    by_stage = stages.requests_by_stage()
    lines = [f"  {'stage':<20} {'CPU ms/event':>12} {'requests/event':>15}  requests"]
    for stage in [s for s in STAGES if stages.cpu.get(s) or by_stage.get(s)] + sorted(
            s for s in set(stages.cpu) | set(by_stage) if s not in STAGES):
        kinds = Counter({key.split("|", 1)[1]: n for key, n in stages.requests.items()
                         if key.split("|", 1)[0] == stage and n})
        shown = ", ".join(f"{kind} {n / events:.3f}" for kind, n in kinds.most_common(5))
        lines.append(f"  {stage:<20} {stages.cpu.get(stage, 0.0) * 1000 / events:>12.3f} "
                     f"{by_stage.get(stage, 0) / events:>15.3f}  {shown}")
    return lines


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
    return f"{verdict}; {'; '.join(parts)}"


def machine_load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} CPUs"


def commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" with uncommitted changes" if dirty else "")


def record(path: Path, title: str, lines: list[str], loads: list[str]) -> None:
    """Appends the run to a markdown history (docs/load-runs.md)."""
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    block = [f"\n### {when}, commit {commit()}\n", f"{title}; machine before: {loads[0]}, "
             f"after: {loads[-1]}.\n", "```", *[line.rstrip() for line in lines], "```"]
    with path.open("a") as handle:
        handle.write("\n".join(block) + "\n")
