"""The notifier's queue: new messages to decide on, pushes and removals go without
delay; an email wake-up is a message delayed until its period ends (SQS DelaySeconds,
at most 15 minutes: a longer period is reached by re-sending the wake-up with the time
left)."""
from __future__ import annotations

import json
from typing import Any, Literal, TypedDict

from chalicelib import config
from chalicelib.aws import aws_clients
from chalicelib.rules import presence_rules as presence

MAX_DELAY_SECONDS = 900   # SQS's limit for DelaySeconds
SQS_BATCH = 10


class EmailJob(TypedDict):
    kind: Literal["email"]
    realm_id: int
    user_id: int
    due_ms: int


class PushJob(TypedDict):
    kind: Literal["push"]
    realm_id: int
    user_id: int
    messages: list[tuple[int, str]]   # (message id, reason)


class DecideJob(TypedDict):
    """New messages for the notifier to decide on (decide.py), from the fan-out
    (pending.py). Each message: realm_id, message_id, type, sender_id, stream_id, topic,
    `recipients` as [user id, [the flags the rules read]] and `subscriptions` as
    [user id, settings] for subscriptions whose settings are not the defaults."""
    kind: Literal["decide"]
    arrived_ms: int
    messages: list[dict[str, Any]]


class RemoveJob(TypedDict):
    kind: Literal["remove"]
    realm_id: int
    user_id: int
    message_ids: list[int]


def push_configured() -> bool:
    return bool(config.sns_apns_platform_arn() or config.sns_fcm_platform_arn())


def clock_ms() -> int:
    """The notifications' clock: the presence clock (presence is what "away" means), in
    milliseconds; tests move it instead of waiting for a period to end."""
    return int(presence.now() * 1000)


def delay_until(due_ms: int, now_ms: int) -> int:
    """SQS delay (seconds) to reach `due_ms`: rounded up, at most 15 minutes."""
    return max(0, min(MAX_DELAY_SECONDS, -(-(due_ms - now_ms) // 1000)))


def send_jobs(jobs: list[tuple[Any, int]]) -> None:
    """Sends (job, delay seconds) pairs, ten a request; raises if any was refused."""
    if not jobs:
        return
    url = aws_clients.queue_url(config.notification_queue_name())
    for start in range(0, len(jobs), SQS_BATCH):
        chunk = jobs[start:start + SQS_BATCH]
        response = aws_clients.sqs().send_message_batch(QueueUrl=url, Entries=[
            {"Id": str(i), "MessageBody": json.dumps(job), "DelaySeconds": delay}
            for i, (job, delay) in enumerate(chunk)])
        if response.get("Failed"):
            raise RuntimeError(f"notification jobs refused: {response['Failed']}")
