"""One-time schedules on EventBridge Scheduler: a target invoked once at a time.

Each schedule invokes the `scheduled_messages` function with a small JSON input; the
schedule deletes itself after it ran (ActionAfterCompletion). Locally moto stores the
schedules and the local stack's runner fires the due ones (infra/local/schedules.py).
"""
from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import boto3

from chalicelib import config
from chalicelib.aws.client_config import client_config

if TYPE_CHECKING:
    from mypy_boto3_scheduler import EventBridgeSchedulerClient


@functools.cache
def _client() -> EventBridgeSchedulerClient:
    return boto3.client("scheduler", region_name=config.region(), config=client_config())


def at_expression(timestamp: int) -> str:
    """EventBridge Scheduler's one-time expression, in UTC to the second."""
    return "at(" + datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%S") + ")"


def put_schedule(name: str, timestamp: int, payload: dict[str, Any], *, update: bool) -> None:
    """Creates (or moves) the schedule `name` to invoke the target at `timestamp`."""
    arguments: dict[str, Any] = {
        "Name": name, "GroupName": config.schedule_group(),
        "ScheduleExpression": at_expression(timestamp),
        "ScheduleExpressionTimezone": "UTC",
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "ActionAfterCompletion": "DELETE",
        "Target": {"Arn": config.scheduled_messages_target_arn(),
                   "RoleArn": config.scheduler_role_arn(),
                   "Input": json.dumps(payload),
                   "RetryPolicy": {"MaximumRetryAttempts": 10,
                                   "MaximumEventAgeInSeconds": 3600}}}
    if update:
        _client().update_schedule(**arguments)
    else:
        _client().create_schedule(**arguments)


def delete_schedule(name: str) -> None:
    """Deletes the schedule; one that already ran (and deleted itself) is fine."""
    try:
        _client().delete_schedule(Name=name, GroupName=config.schedule_group())
    except _client().exceptions.ResourceNotFoundException:
        pass
