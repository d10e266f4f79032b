"""Outgoing webhooks (§4.21): which bots a message triggers, and delivering to them.

A triggering message writes one outbox record per bot in its own transaction; the
fan-out turns those records into SQS messages, and the SQS worker delivers each one.
A delivery record per (message, bot), claimed with a conditional write before the POST,
makes a duplicate SQS delivery a no-op.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from pynamodb.exceptions import PutError

from chalicelib import config
from chalicelib.events.outbox import add_event
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError
from chalicelib.lib.log import logger
from chalicelib.lib.url_safety import UnsafeUrlError
from chalicelib.lib.webhook_client import WebhookUnreachable, post_json
from chalicelib.models.messages import Message
from chalicelib.models.users import User
from chalicelib.models.webhooks import WebhookDelivery, delivery_key

OUTGOING_WEBHOOK_RECORD = "_outgoing_webhook"   # outbox records the fan-out sends to SQS
BOT_TYPE_OUTGOING_WEBHOOK = 3
MAX_ATTEMPTS = 4            # matches the queue's maxReceiveCount: then the DLQ
REQUEST_TIMEOUT_SECONDS = 10
CLAIM_SECONDS = 120         # an older "sending" claim is a crashed attempt
DELIVERY_RECORD_TTL = timedelta(days=4)


def is_outgoing_webhook_bot(user: User) -> bool:
    return bool(user.is_bot and user.bot_type == BOT_TYPE_OUTGOING_WEBHOOK and user.is_active
                and user.service_url)


def triggered_bots(sender: User, *, mentioned: list[User] | None = None,
                   participants: list[User] | None = None) -> list[tuple[User, str]]:
    """(bot, trigger) pairs; messages from bots trigger nothing, so bots cannot loop."""
    if sender.is_bot:
        return []
    found = [(u, "mention") for u in mentioned or []] + \
        [(u, "direct_message") for u in participants or []]
    seen: set[int] = set()
    triggers = []
    for user, trigger in found:
        if is_outgoing_webhook_bot(user) and user.user_id not in seen:
            seen.add(user.user_id)
            triggers.append((user, trigger))
    return triggers


def add_webhook_triggers(tx: Any, realm_id: int, message_id: int,
                         triggers: list[tuple[User, str]]) -> None:
    for bot, trigger in triggers:
        add_event(tx, realm_id, {"type": OUTGOING_WEBHOOK_RECORD, "realm_id": realm_id,
                                 "message_id": message_id, "bot_id": bot.user_id,
                                 "trigger": trigger}, {"users": []})


@dataclass(frozen=True)
class DeliveryJob:
    realm_id: int
    message_id: int
    bot_id: int
    trigger: str

    @classmethod
    def from_body(cls, body: str) -> DeliveryJob:
        data = json.loads(body)
        return cls(int(data["realm_id"]), int(data["message_id"]), int(data["bot_id"]),
                   str(data["trigger"]))


class RetryLater(Exception):
    """The receiver could not be reached; SQS should offer the job again later."""

    def __init__(self, delay_seconds: int) -> None:
        super().__init__(f"retry in {delay_seconds} s")
        self.delay_seconds = delay_seconds


def deliver(job: DeliveryJob, attempt: int) -> str:
    """Performs one delivery attempt; returns what happened, or raises RetryLater."""
    if not _claim(job):
        return "duplicate"
    bot = User.get_or_none(job.realm_id, job.bot_id)
    message = Message.get_or_none(job.realm_id, job.message_id)
    if bot is None or message is None or not is_outgoing_webhook_bot(bot):
        _close(job, "done")
        return "skipped"
    try:
        response = post_json(bot.service_url or "", build_payload(bot, message, job.trigger),
                             REQUEST_TIMEOUT_SECONDS)
    except UnsafeUrlError as error:
        _fail(bot, message, f"Failure! {error}", str(error))
        _close(job, "failed")
        return "refused"
    except WebhookUnreachable as error:
        if attempt < MAX_ATTEMPTS:
            _close(job, "retry")
            delays = config.webhook_retry_delays_seconds()
            raise RetryLater(delays[min(attempt, len(delays)) - 1]) from error
        _fail(bot, message, "Failure! Maximum retries exceeded! The bot could not be "
                            f"reached ({error}).",
              "When trying to send a request to the webhook service, an exception "
              f"occurred:\n```\n{error}\n```")
        _close(job, "failed")
        raise RetryLater(0) from error   # the queue's redrive moves it to the dead-letter queue
    if 200 <= response.status < 300:
        _handle_reply(bot, message, response.json())
        _close(job, "done")
        return "delivered"
    _fail(bot, message, f"Failure! Bot responded with status code {response.status}.",
          f"The webhook got a response with status code *{response.status}*.")
    _close(job, "done")
    return "failed"


def build_payload(bot: User, message: Message, trigger: str) -> dict[str, Any]:
    """The JSON body of §4.21: the message in the §2.1 format, raw Markdown content."""
    from chalicelib.actions.message_dicts import load_people_and_channels, message_api_dict
    from chalicelib.actions.realms import get_realm

    realm = get_realm(message.realm_id)
    users, streams = load_people_and_channels(message.realm_id, [message])
    return {"bot_email": bot.email, "bot_full_name": bot.full_name, "data": message.content,
            "message": message_api_dict(message, users, streams, realm, apply_markdown=False),
            "trigger": trigger, "token": bot.service_token}


def _claim(job: DeliveryJob) -> bool:
    now = int(time.time())
    item = WebhookDelivery(delivery_key(job.realm_id, job.message_id), job.bot_id,
                           status="sending", claimed_at=now,
                           expires_at=datetime.now(timezone.utc) + DELIVERY_RECORD_TTL)
    try:
        item.save(condition=WebhookDelivery.bot_id.does_not_exist()
                  | (WebhookDelivery.status == "retry")
                  | ((WebhookDelivery.status == "sending")
                     & (WebhookDelivery.claimed_at < now - CLAIM_SECONDS)))
        return True
    except PutError:
        return False


def _close(job: DeliveryJob, status: str) -> None:
    WebhookDelivery(delivery_key(job.realm_id, job.message_id), job.bot_id).update(
        actions=[WebhookDelivery.status.set(status)])


def _as(user: User) -> Principal:
    return Principal(user.realm_id, user.user_id, user.email, user.role, user.is_bot)


def _reply(bot: User, message: Message, content: str) -> None:
    """Posts the bot's message in the conversation of `message`."""
    from chalicelib.actions.message_send import check_send_message

    if message.type == "stream":
        check_send_message(_as(bot), message_type="stream", to=str(message.stream_id),
                           topic=message.topic, content=content, client="OutgoingWebhook")
    else:
        others = [u for u in message.recipient_ids if u != bot.user_id] or [message.sender_id]
        check_send_message(_as(bot), message_type="private", to=json.dumps(others),
                           topic=None, content=content, client="OutgoingWebhook")


def _handle_reply(bot: User, message: Message, body: Any) -> None:
    if not isinstance(body, dict) or body.get("response_not_required"):
        return
    content = body.get("content", body.get("response_string"))
    if isinstance(content, str) and content.strip():
        try:
            _reply(bot, message, content)
        except ApiError as error:
            logger.warning("bot reply refused", extra={"bot_id": bot.user_id,
                                                       "error": error.msg})


def _fail(bot: User, message: Message, notice: str, owner_detail: str) -> None:
    """Tells the conversation (as the bot) and the bot's owner that a delivery failed."""
    from chalicelib.actions.message_send import check_send_message
    from chalicelib.actions.system_bots import notification_bot

    try:
        _reply(bot, message, notice)
    except ApiError as error:
        logger.warning("failure notice refused", extra={"error": error.msg})
    if bot.bot_owner_id is None:
        return
    text = (f"[A message](#narrow/id/{message.message_id}) to your bot "
            f"@_**{bot.full_name}|{bot.user_id}** triggered an outgoing webhook.\n"
            f"{owner_detail}")
    try:
        check_send_message(_as(notification_bot(bot.realm_id)), message_type="private",
                           to=json.dumps([bot.bot_owner_id]), topic=None, content=text,
                           client="Internal")
    except ApiError as error:
        logger.warning("owner notice refused", extra={"error": error.msg})
