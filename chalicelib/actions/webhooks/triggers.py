"""Outgoing webhooks (§4.21): which bots a message triggers, and their delivery jobs.

A triggering message writes one job record per bot into the outbox, in the message's
own transaction, carrying the message as receivers see it (§2.1, raw Markdown); the
fan-out sends the jobs to SQS and the SQS worker delivers each one
(`actions/webhook_delivery.py`).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from chalicelib import config
from chalicelib.actions.users.bots import BOT_TYPE_OUTGOING_WEBHOOK
from chalicelib.delivery.outbox import add_event
from chalicelib.lib import aws_clients
from chalicelib.lib.log import logger
from chalicelib.lib.mentions import USER_MENTION
from chalicelib.models.users import User

if TYPE_CHECKING:
    from mypy_boto3_sqs.type_defs import SendMessageBatchRequestEntryTypeDef

OUTGOING_WEBHOOK_RECORD = "_outgoing_webhook"   # outbox records the fan-out sends to SQS
SQS_BATCH_COUNT, SQS_BATCH_BYTES = 10, 250_000   # SQS: 10 messages, 256 KiB per request


def is_outgoing_webhook_bot(user: User) -> bool:
    return bool(user.is_bot and user.bot_type == BOT_TYPE_OUTGOING_WEBHOOK and user.is_active
                and user.service_url)


def triggered_bots(sender: User, *, content: str = "", mentioned: Iterable[User] = (),
                   participants: Iterable[User] = ()) -> list[tuple[User, str]]:
    """(bot, trigger) pairs: bots mentioned aloud in `content` (a silent @_ mention
    notifies nobody), or among a direct message's recipients. Messages from bots
    trigger nothing, so bots cannot answer each other forever."""
    if sender.is_bot:
        return []
    names, ids = _loud_mentions(content)
    found = [(u, "mention") for u in mentioned
             if u.user_id in ids or u.full_name.lower() in names]
    found += [(u, "direct_message") for u in participants]
    seen: set[int] = set()
    triggers = []
    for user, trigger in found:
        if is_outgoing_webhook_bot(user) and user.user_id not in seen:
            seen.add(user.user_id)
            triggers.append((user, trigger))
    return triggers


def _loud_mentions(content: str) -> tuple[set[str], set[int]]:
    names: set[str] = set()
    ids: set[int] = set()
    for silent, name, user_id in USER_MENTION.findall(content):
        if silent:
            continue
        if user_id:
            ids.add(int(user_id))
        else:
            names.add(name.strip().lower())
    return names, ids


def add_webhook_triggers(tx: Any, realm_id: int, event_message: dict[str, Any],
                         triggers: list[tuple[User, str]]) -> None:
    """Adds one job per triggered bot to the sending transaction (`event_message` is the
    message event's dict, which keeps the raw Markdown aside)."""
    if not triggers:
        return
    message = receiver_message(event_message)
    for bot, trigger in triggers:
        job = DeliveryJob(realm_id, message["id"], bot.user_id, trigger, message)
        add_event(tx, realm_id, {"type": OUTGOING_WEBHOOK_RECORD, **asdict(job)},
                  {"users": []})


def receiver_message(event_message: dict[str, Any]) -> dict[str, Any]:
    """The message as receivers get it (§2.1): raw Markdown in `content`, HTML kept."""
    message = {k: v for k, v in event_message.items() if not k.startswith("_")}
    message.update(content=event_message["_raw_content"], content_type="text/x-markdown")
    return message


@dataclass(frozen=True)
class DeliveryJob:
    realm_id: int
    message_id: int
    bot_id: int
    trigger: str
    message: dict[str, Any]   # as sent: later edits do not change what the bot gets

    @classmethod
    def from_body(cls, body: str) -> DeliveryJob:
        data = json.loads(body)
        return cls(int(data["realm_id"]), int(data["message_id"]), int(data["bot_id"]),
                   str(data["trigger"]), dict(data["message"]))


def job_body(record_event: dict[str, Any]) -> str:
    """The SQS message body for an outbox job record (UTF-8: half the size of escapes)."""
    return json.dumps({k: record_event[k] for k in DeliveryJob.__dataclass_fields__},
                      ensure_ascii=False)


def enqueue_jobs(jobs: list[tuple[str, dict[str, Any]]]) -> set[str]:
    """Sends (stream sequence number, outbox job record) pairs to the webhook queue in
    batches within SQS's limits (10 messages, 256 KB); returns the sequence numbers
    that failed, for the stream to offer again (the worker's claim absorbs repeats)."""
    sqs = aws_clients.sqs()
    try:
        queue_url = aws_clients.queue_url(config.webhook_queue_name())
    except Exception:  # noqa: BLE001 - every job is reported failed, retried by the stream
        logger.exception("webhook queue lookup failed")
        return {sequence for sequence, _ in jobs}
    failed: set[str] = set()
    for chunk in _sqs_batches([(sequence, job_body(event)) for sequence, event in jobs]):
        entries: list[SendMessageBatchRequestEntryTypeDef] = [
            {"Id": str(i), "MessageBody": body} for i, (_, body) in enumerate(chunk)]
        try:
            result = sqs.send_message_batch(QueueUrl=queue_url, Entries=entries)
        except Exception:  # noqa: BLE001 - reported as failed records, retried by the stream
            logger.exception("webhook enqueue failed")
            failed |= {sequence for sequence, _ in chunk}
            continue
        failed |= {chunk[int(f["Id"])][0] for f in result.get("Failed", [])}
    return failed


def _sqs_batches(bodies: list[tuple[str, str]]) -> Iterator[list[tuple[str, str]]]:
    chunk: list[tuple[str, str]] = []
    size = 0
    for sequence, body in bodies:
        length = len(body.encode())
        if chunk and (len(chunk) == SQS_BATCH_COUNT or size + length > SQS_BATCH_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append((sequence, body))
        size += length
    if chunk:
        yield chunk
