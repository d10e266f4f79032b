"""Fires due one-time EventBridge Scheduler schedules locally: moto stores schedules but
never runs them, so the local stack (and the tests) invoke each due schedule's target
handler with its input, then delete the schedule as ActionAfterCompletion DELETE does."""
from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import boto3

from chalicelib import config
from chalicelib.aws.log import logger


def _due_at(expression: str) -> datetime | None:
    if not expression.startswith("at(") or not expression.endswith(")"):
        return None
    return datetime.strptime(expression[3:-1], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)


def fire_due(handler: Callable[[dict[str, Any], Any], Any], now: datetime | None = None,
             context: Any = None, where: Callable[[dict[str, Any]], bool] | None = None,
             keep: bool = False) -> list[Any]:
    """Invokes `handler` for every schedule due at `now` (default: the clock) whose input
    satisfies `where`; returns the handler's results. A schedule whose handler raised is
    kept, as the service retries it; `keep` keeps them all (to fire one twice)."""
    client = boto3.client("scheduler", region_name=config.region())
    now = now or datetime.now(UTC)
    group = config.schedule_group()
    results = []
    names = [s["Name"] for page in client.get_paginator("list_schedules").paginate(
        GroupName=group) for s in page.get("Schedules", [])]
    for name in names:
        try:
            schedule = client.get_schedule(Name=name, GroupName=group)
        except client.exceptions.ResourceNotFoundException:
            continue
        due = _due_at(schedule["ScheduleExpression"])
        payload = json.loads(schedule["Target"].get("Input") or "{}")
        if due is None or due > now or (where is not None and not where(payload)):
            continue
        try:
            results.append(handler(payload, context))
        except Exception:  # noqa: BLE001 - kept for the next round, as the service retries
            logger.exception("scheduled target failed", extra={"schedule": name})
            continue
        if keep:
            continue
        try:
            client.delete_schedule(Name=name, GroupName=group)
        except client.exceptions.ResourceNotFoundException:
            pass
    return results


class DueScheduleRunner(threading.Thread):
    """Fires due schedules every `seconds` (the service fires at the minute's second)."""

    def __init__(self, handler: Callable[[dict[str, Any], Any], Any], stop: threading.Event,
                 seconds: float = 1.0) -> None:
        super().__init__(name="schedules", daemon=True)
        self.handler, self.stop, self.seconds = handler, stop, seconds

    def run(self) -> None:
        while not self.stop.wait(self.seconds):
            try:
                fire_due(self.handler)
            except Exception:  # noqa: BLE001 - the runner outlives one bad round
                logger.exception("schedule runner failed")
