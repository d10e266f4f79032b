"""Waking a waiting GET /events as soon as its queue gets events: an SQS queue per
event queue, long-polled by the waiter, sent a message by the fan-out after an append.

SQS long polling answers as soon as a message arrives, so the waiter neither reads
DynamoDB in a loop nor sleeps past an append. The wake queue is created by the queue's
first blocking poll (queues that only use the push channel never get one); its messages
live 60 s and are received with a long visibility timeout, so none is deleted or seen
twice. Wake queues of gone event queues are deleted by the keepalive (realtime/keepalive.py).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from chalicelib import config
from chalicelib.aws import aws_clients
from chalicelib.aws.log import logger
from chalicelib.models.events import EventQueue

MAX_WAIT_SECONDS = 20        # SQS's longest long poll
MESSAGE_RETENTION = 60       # SQS's shortest retention
HIDE_SECONDS = 43200         # received wake-ups stay hidden until they expire
# SQS takes 256 KiB a message; events beyond this are read from the queue instead.
MAX_CARRIED_CHARS = 200_000

# What a wake-up says: new events, or credentials that changed (a rotated or revoked
# key), after which the waiter checks its key again before reading.
EVENTS = "1"
CREDENTIALS = "credentials"


def wake_queue_prefix() -> str:
    return config.table_prefix() + config.WAKE_QUEUE_MARK


def ensure_wake_queue(queue: EventQueue) -> str:
    """The queue's wake URL, creating the SQS queue and recording it the first time."""
    if queue.wake_url:
        return queue.wake_url
    url = aws_clients.sqs().create_queue(QueueName=wake_queue_prefix() + queue.queue_id, Attributes={
        "MessageRetentionPeriod": str(MESSAGE_RETENTION)})["QueueUrl"]
    queue.update(actions=[EventQueue.wake_url.set(url)],
                 condition=EventQueue.queue_id.exists())
    return url


@dataclass(frozen=True)
class WakeUp:
    """What the wake-ups a wait received said (EVENTS, CREDENTIALS), and the events
    they carried; false if none came."""

    reasons: frozenset[str] = frozenset()
    events: tuple[dict[str, Any], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.reasons)


def wait_for_wake(url: str, seconds: float) -> WakeUp:
    """Blocks up to `seconds` (whole seconds, 1..20) for wake-ups."""
    wait = max(1, min(MAX_WAIT_SECONDS, math.floor(seconds)))
    try:
        messages = aws_clients.sqs().receive_message(QueueUrl=url, WaitTimeSeconds=wait,
                                          MaxNumberOfMessages=10,
                                          VisibilityTimeout=HIDE_SECONDS).get("Messages", [])
    except ClientError as error:   # e.g. deleted by the sweep: the caller re-checks
        logger.warning("wake queue receive failed", extra={"error": str(error)})
        return WakeUp()
    reasons: set[str] = set()
    events: list[dict[str, Any]] = []
    for message in messages:
        body = message.get("Body", EVENTS)
        if body.startswith("{"):
            reasons.add(EVENTS)
            events.extend(json.loads(body)["events"])
        else:
            reasons.add(body)
    return WakeUp(frozenset(reasons), tuple(events))


def wake(url: str, reason: str = EVENTS, events: list[dict[str, Any]] | None = None) -> None:
    """Best effort: a lost wake-up only delays delivery to the waiter's next check.
    A wake-up for new events carries them when they fit, so the waiter need not read
    them back from the queue (realtime/reader.py checks that they follow on)."""
    body = reason
    if events:
        carried = json.dumps({"events": events}, separators=(",", ":"))   # ASCII only
        if len(carried) <= MAX_CARRIED_CHARS:
            body = carried
    try:
        aws_clients.sqs().send_message(QueueUrl=url, MessageBody=body)
    except ClientError as error:
        logger.warning("wake-up failed", extra={"error": str(error)})


def delete_wake_queue(url: str) -> None:
    try:
        aws_clients.sqs().delete_queue(QueueUrl=url)
    except ClientError as error:
        logger.warning("deleting a wake queue failed", extra={"error": str(error)})



def list_wake_queues() -> dict[str, str]:
    """Event queue id -> wake queue URL, for every wake queue of this stage."""
    prefix = wake_queue_prefix()
    urls: list[str] = []
    for page in aws_clients.sqs().get_paginator("list_queues").paginate(QueueNamePrefix=prefix):
        urls.extend(page.get("QueueUrls", []))
    return {url.rsplit("/", 1)[-1][len(prefix):]: url for url in urls}
