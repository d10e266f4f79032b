"""Delivering outgoing-webhook jobs (§4.21) in the SQS worker, and the bots' replies.

A delivery record per (message, bot), claimed with a conditional write before each
attempt, makes a duplicate SQS delivery a no-op and counts the attempts across
duplicates. Replies are sent as the bot through the ordinary send path.
"""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from pynamodb.exceptions import UpdateError

from chalicelib import config
from chalicelib.actions.messages.send import check_send_message
from chalicelib.actions.messages.webhook_triggers import is_outgoing_webhook_bot
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.webhook_jobs import DeliveryJob
from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.users import User
from chalicelib.models.webhooks import WebhookDelivery, delivery_key
from chalicelib.rules.timeutil import now_seconds
from chalicelib.rules.url_safety import UnsafeUrlError
from chalicelib.rules.webhook_interfaces import (
    INTERFACE_GENERIC,
    INTERFACE_SLACK,
    InvalidReplyError,
    UnsupportedConversationError,
    WebhookRequest,
    generic_request,
    reply_content,
    slack_request,
)
from chalicelib.webhooks import client as webhook_client
from chalicelib.webhooks.client import WebhookTimeout, WebhookUnreachable

MAX_ATTEMPTS = 4            # the queue's maxReceiveCount matches: then the dead-letter queue
REQUEST_TIMEOUT_SECONDS = 10
CLAIM_SECONDS = 120         # an older "sending" claim is a crashed attempt
DELIVERY_RECORD_TTL = timedelta(days=4)   # the queue's retention: no copy outlives it
REPLY_CLIENT = "OutgoingWebhookResponse"
SENDING, RETRY, DONE, GAVE_UP = "sending", "retry", "done", "gave_up"
PRIVATE_NETWORK = "The URL configured for the webhook is for a private or disallowed network."


class RetryLater(Exception):
    """The receiver could not be reached; SQS should offer the job again later.
    `gave_up`: that was the last attempt (the redrive moves the job to the DLQ)."""

    def __init__(self, delay_seconds: int, gave_up: bool = False) -> None:
        super().__init__(f"retry in {delay_seconds} s")
        self.delay_seconds = delay_seconds
        self.gave_up = gave_up


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
        # offered again at once: the redrive moves it to the DLQ
        raise RetryLater(0, gave_up=True) from error
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
