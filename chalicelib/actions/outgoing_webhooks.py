"""Outgoing webhooks (§4.21): which bots a message triggers, and delivering to them.

A triggering message writes one job record per bot into the outbox, in the message's
own transaction, carrying the message as receivers see it (§2.1, raw Markdown); the
fan-out sends the jobs to SQS and the SQS worker delivers each one. A delivery record
per (message, bot), claimed with a conditional write before each attempt, makes a
duplicate SQS delivery a no-op and counts the attempts across duplicates.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from pynamodb.exceptions import UpdateError

from chalicelib import config
from chalicelib.actions.bots import BOT_TYPE_OUTGOING_WEBHOOK
from chalicelib.events.outbox import add_event
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError
from chalicelib.lib import aws_clients, webhook_client
from chalicelib.lib.log import logger
from chalicelib.lib.mentions import USER_MENTION
from chalicelib.lib.timeutil import now_seconds
from chalicelib.lib.url_safety import UnsafeUrlError
from chalicelib.lib.webhook_client import (
    WebhookRequest,
    WebhookTimeout,
    WebhookUnreachable,
)
from chalicelib.lib.webhook_interfaces import (
    INTERFACE_GENERIC,
    INTERFACE_SLACK,
    InvalidReplyError,
    UnsupportedConversationError,
    generic_request,
    reply_content,
    slack_request,
)
from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.users import User
from chalicelib.models.webhooks import WebhookDelivery, delivery_key

OUTGOING_WEBHOOK_RECORD = "_outgoing_webhook"   # outbox records the fan-out sends to SQS
MAX_ATTEMPTS = 4            # the queue's maxReceiveCount matches: then the dead-letter queue
REQUEST_TIMEOUT_SECONDS = 10
CLAIM_SECONDS = 120         # an older "sending" claim is a crashed attempt
DELIVERY_RECORD_TTL = timedelta(days=4)   # the queue's retention: no copy outlives it
REPLY_CLIENT = "OutgoingWebhookResponse"
SQS_BATCH_COUNT, SQS_BATCH_BYTES = 10, 250_000   # SQS: 10 messages, 256 KiB per request
SENDING, RETRY, DONE, GAVE_UP = "sending", "retry", "done", "gave_up"
PRIVATE_NETWORK = "The URL configured for the webhook is for a private or disallowed network."


# ---- triggers (in the sending request) ------------------------------------------------

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
    sqs = aws_clients.client("sqs")
    queue_url = aws_clients.queue_url(config.webhook_queue_name())
    failed: set[str] = set()
    for chunk in _sqs_batches([(sequence, job_body(event)) for sequence, event in jobs]):
        entries = [{"Id": str(i), "MessageBody": body} for i, (_, body) in enumerate(chunk)]
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


# ---- delivery (in the SQS worker) ----------------------------------------------------

class RetryLater(Exception):
    """The receiver could not be reached; SQS should offer the job again later."""

    def __init__(self, delay_seconds: int) -> None:
        super().__init__(f"retry in {delay_seconds} s")
        self.delay_seconds = delay_seconds


def retry_delay(attempt: int) -> int:
    """The backoff after failed attempt `attempt` (1-based): 5, 30, 120 s by default."""
    delays = config.webhook_retry_delays_seconds()
    return delays[min(attempt, len(delays)) - 1]


def deliver(job: DeliveryJob, receive_count: int = 1) -> str:
    """Performs one delivery attempt; returns what happened, or raises RetryLater."""
    claimed = _claim(job)
    if claimed is None:
        return "duplicate"
    # A copy that crashed before claiming still used up one of SQS's receives.
    attempt = max(claimed, receive_count)
    bot = User.get_or_none(job.realm_id, job.bot_id)
    if bot is None or not is_outgoing_webhook_bot(bot):
        _close(job, DONE)
        return "skipped"
    try:
        request = build_request(bot, job)
    except UnsupportedConversationError as error:
        _close(job, DONE)
        _say(bot, job.message, f"Failure! {error}")
        return "failed"
    try:
        response = webhook_client.post(bot.service_url or "", request,
                                       REQUEST_TIMEOUT_SECONDS)
    except UnsafeUrlError:
        _close(job, DONE)
        _fail(bot, job, PRIVATE_NETWORK, PRIVATE_NETWORK)
        return "refused"
    except WebhookUnreachable as error:
        if attempt < MAX_ATTEMPTS:
            _close(job, RETRY)
            raise RetryLater(retry_delay(attempt)) from error
        # Closed first: a crash while telling people must not start the attempts over.
        _close(job, GAVE_UP)
        _fail(bot, job, "Bot is unavailable",
              f"Request timed out after {REQUEST_TIMEOUT_SECONDS} seconds."
              if isinstance(error, WebhookTimeout)
              else "A connection error occurred. Is my bot server down?")
        raise RetryLater(0) from error   # offered again at once: the redrive moves it to the DLQ
    # The receiver has it: closed before anything else, so it is never sent twice.
    _close(job, DONE)
    if not 200 <= response.status < 300:
        _fail(bot, job, f"Third party responded with {response.status}",
              f"The webhook got a response with status code *{response.status}*.",
              response.body)
        return "failed"
    try:
        content = reply_content(bot.service_interface or INTERFACE_GENERIC, response.body)
        if content is not None:
            _post_as_bot(bot, job.message, content)
    except (InvalidReplyError, ApiError) as error:
        problem = error.msg if isinstance(error, ApiError) else str(error)
        _fail(bot, job, problem,
              "The outgoing webhook server attempted to send a message, but that request "
              f"resulted in the following error:\n> {problem}", response.body)
        return "failed"
    return "delivered"


def build_request(bot: User, job: DeliveryJob) -> WebhookRequest:
    if bot.service_interface == INTERFACE_SLACK:
        host = urlsplit(config.realm_url(str(job.message.get("sender_realm_str", "")))).netloc
        return slack_request(token=bot.service_token or "", realm_id=job.realm_id,
                             realm_host=host, bot_id=bot.user_id, trigger=job.trigger,
                             message=job.message)
    return generic_request(bot_email=bot.email, bot_full_name=bot.full_name,
                           token=bot.service_token or "", trigger=job.trigger,
                           message=job.message)


def _claim(job: DeliveryJob) -> int | None:
    """Claims the next attempt; returns its number, or None if another copy of the job
    is being delivered or was delivered. Raises RetryLater(0) for a copy of a job that
    gave up, so that it joins the dead-letter queue as well."""
    now = now_seconds()
    item = WebhookDelivery(delivery_key(job.realm_id, job.message_id), job.bot_id)
    try:
        item.update(
            actions=[WebhookDelivery.status.set(SENDING), WebhookDelivery.claimed_at.set(now),
                     WebhookDelivery.attempts.add(1),
                     WebhookDelivery.expires_at.set(
                         datetime.now(UTC) + DELIVERY_RECORD_TTL)],
            condition=WebhookDelivery.status.does_not_exist()
            | (WebhookDelivery.status == RETRY)
            | ((WebhookDelivery.status == SENDING)
               & (WebhookDelivery.claimed_at < now - CLAIM_SECONDS)))
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise
        current = WebhookDelivery.get_or_none(item.message_key, job.bot_id)
        if current is not None and current.status == GAVE_UP:
            raise RetryLater(0) from None
        return None
    return int(item.attempts)


def _close(job: DeliveryJob, status: str) -> None:
    WebhookDelivery(delivery_key(job.realm_id, job.message_id), job.bot_id).update(
        actions=[WebhookDelivery.status.set(status)])


# ---- what the bot says -------------------------------------------------------------

def _as(user: User) -> Principal:
    return Principal(user.realm_id, user.user_id, user.email, user.role, user.is_bot)


def _post_as_bot(bot: User, message: dict[str, Any], content: str) -> None:
    """Posts the bot's message in the conversation of `message` (a §2.1 dict); like the
    reference, a reply in a channel does not need the bot to be subscribed."""
    # Imported here: message_send imports this module.
    from chalicelib.actions.message_send import check_send_message

    if message["type"] == "stream":
        check_send_message(_as(bot), message_type="stream", to=str(message["stream_id"]),
                           topic=message["subject"], content=content, client=REPLY_CLIENT,
                           skip_stream_access_check=True)
        return
    others = [r["id"] for r in message["display_recipient"] if r["id"] != bot.user_id]
    check_send_message(_as(bot), message_type="private",
                       to=json.dumps(others or [message["sender_id"]]), topic=None,
                       content=content, client=REPLY_CLIENT)


def _say(bot: User, message: dict[str, Any], content: str) -> None:
    try:
        _post_as_bot(bot, message, content)
    except ApiError as error:   # e.g. the channel is gone: nowhere to say it
        logger.warning("outgoing webhook notice refused",
                       extra={"bot_id": bot.user_id, "error": error.msg})


def _fail(bot: User, job: DeliveryJob, notice: str, owner_detail: str,
          response_body: bytes | None = None) -> None:
    """Tells the conversation and the bot's owner (in a direct message from the bot, as
    the reference does) that a delivery failed."""
    _say(bot, job.message, f"Failure! {notice}")
    if bot.bot_owner_id is None:
        return
    text = (f"[A message](#narrow/id/{job.message_id}) to your bot "
            f"@_**{bot.full_name}|{bot.user_id}** triggered an outgoing webhook.\n"
            f"{owner_detail}")
    if response_body:
        shown = response_body[:1000].decode(errors="replace")
        text += f"\nThe response contains the following payload:\n```\n{shown!r}\n```"
    _say(bot, {"type": "private", "display_recipient": [{"id": bot.bot_owner_id}],
               "sender_id": bot.bot_owner_id}, text)
