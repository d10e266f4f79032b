"""POST /external/{integration}: the part every integration shares. The bot (an
incoming-webhook bot, by its key), the tool's signature when the bot has a secret, the
payload read within its bounds, the integration's translation, the `only_events` /
`exclude_events` filters, and each message sent as the bot: to the URL's channel (in
the URL's topic, or the one the translation chose), or to the bot's owner as a direct
message when the URL names no channel.

As in the reference, a channel that does not exist (or that the bot may not post to) is
no error for the tool: the bot's owner is told, and the request succeeds, so the tool
does not give up on the webhook. The owner is told too of a tool set up wrong (no JSON,
no event header). Notices come at most once every NOTICE_INTERVAL seconds per bot.
"""
from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass

from pynamodb.exceptions import UpdateError

from chalicelib import config
from chalicelib.actions.messages.send import check_send_message
from chalicelib.actions.users.system_bots import notification_bot
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError, ErrorCode, ResourceNotFoundError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.core.tool_requests import ToolRequest
from chalicelib.integrations import find_integration
from chalicelib.integrations.base import Inbound, Integration, Notice, WebhookError
from chalicelib.integrations.markdown import topic as topic_name
from chalicelib.integrations.payload import decode_payload
from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.users import BOT_TYPE_INCOMING_WEBHOOK, User
from chalicelib.rules.timeutil import now_seconds

MAX_MESSAGES = 10          # messages one request may send (alerts of one notification)
MAX_PATTERN_LENGTH = 100   # characters of an only_events / exclude_events pattern
NOTICE_INTERVAL = 600      # seconds between two notices to a bot's owner
# Errors that mean the tool is set up wrong (the reference tells the bot's owner of them).
MISCONFIGURED = {ErrorCode.INVALID_JSON, ErrorCode.MISSING_HTTP_EVENT_HEADER}


@dataclass(frozen=True)
class Target:
    """Where the URL says the messages go, and which event types it wants."""

    stream: str | None = None
    topic: str | None = None
    only_events: list[str] | None = None
    exclude_events: list[str] | None = None

    def wants(self, event_type: str | None) -> bool:
        """Shell-style patterns, as the reference matches them; an event without a type
        passes both filters."""
        if event_type is None:
            return True
        if self.only_events is not None and not any(
                fnmatch.fnmatchcase(event_type, p) for p in self.only_events):
            return False
        return not (self.exclude_events is not None and any(
            fnmatch.fnmatchcase(event_type, p) for p in self.exclude_events))


def check_incoming_webhook(caller: Principal, name: str, post: ToolRequest,
                           target: Target) -> EmptyResult:
    integration = find_integration(name)
    if integration is None:
        raise ResourceNotFoundError()
    for pattern in [*(target.only_events or []), *(target.exclude_events or [])]:
        if len(pattern) > MAX_PATTERN_LENGTH:
            raise ApiError(f"An event pattern is over the limit of {MAX_PATTERN_LENGTH} characters.")
    bot = User.get_or_none(caller.realm_id, caller.user_id)
    if bot is None or bot.bot_type != BOT_TYPE_INCOMING_WEBHOOK:
        raise ApiError("Only an incoming webhook bot's API key can post to an integration's "
                       "URL: create one (bot type 2) and use its key.")
    _check_signature(integration, bot, post)
    try:
        notices = _translate(integration, post, target)
    except ApiError as error:
        if error.code in MISCONFIGURED:   # the tool is set up wrong: its owner should know
            _tell_owner(bot, f"Your bot @_**{bot.full_name}|{bot.user_id}** was sent a "
                        f"request its {integration.display_name} integration cannot read: "
                        f"{error.msg} Check the tool's webhook settings (the URL, and JSON "
                        "as the content type).")
        raise
    for notice in [n for n in notices if target.wants(n.event_type)][:MAX_MESSAGES]:
        _deliver(caller, bot, integration, notice, target)
    return {}


def _translate(integration: Integration, post: ToolRequest, target: Target) -> list[Notice]:
    payload = decode_payload(post.body, post.content_type, integration.form_field)
    inbound = Inbound(payload=payload, headers=post.headers,
                      options={o.key: post.options[o.key] for o in integration.url_options
                               if o.key in post.options},
                      topic_given=target.topic is not None)
    try:
        return integration.translate(inbound)
    except WebhookError as error:
        # The sender's doing, not ours: noted, to see which events people would want.
        logger.info("integration payload not translated", extra={
            "integration": integration.name, "code": str(error.code),
            "event_type": error.extra.get("event_type"), "header": error.extra.get("header")})
        raise error.for_integration(integration.display_name) from None


def _check_signature(integration: Integration, bot: User, post: ToolRequest) -> None:
    secret = (bot.bot_config.as_dict() if bot.bot_config else {}).get("webhook_secret")
    if not secret or integration.check_signature is None:
        return
    if not integration.check_signature(post.body, post.headers, str(secret)):
        raise ApiError(f"The request's {integration.display_name} signature does not match "
                       "the secret configured for this bot.")


def storable(text: str) -> str:
    """Text DynamoDB can store: a payload's lone surrogates become '?'."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _deliver(caller: Principal, bot: User, integration: Integration, notice: Notice,
             target: Target) -> None:
    content = storable(notice.content)
    if len(content) > config.MAX_MESSAGE_LENGTH:
        content = content[:config.MAX_MESSAGE_LENGTH - 1] + "…"
    client = f"{integration.display_name} webhook"
    if target.stream is None:
        if bot.bot_owner_id is None:
            raise ApiError("This bot has no owner to send to: name a channel in the URL "
                           "(stream=...).")
        check_send_message(caller, message_type="private", to=json.dumps([bot.bot_owner_id]),
                           topic=None, content=content, client=client)
        return
    # The URL's topic as given (the send checks it); the translation's made to fit.
    topic = storable(target.topic if target.topic is not None else topic_name(notice.topic))
    try:
        check_send_message(caller, message_type="stream", to=target.stream, topic=topic,
                           content=content, client=client)
    except ApiError as error:
        if error.code != ErrorCode.STREAM_DOES_NOT_EXIST:
            raise
        _tell_owner(bot, f"Your bot @_**{bot.full_name}|{bot.user_id}** could not post a "
                    f"{integration.display_name} message to the channel "
                    f"{json.dumps(target.stream[:100])}: it does not exist, or the bot may "
                    "not post there. Check the integration's URL, or subscribe the bot.")


def _tell_owner(bot: User, text: str) -> None:
    """A direct message from the notification bot to the bot's owner, unless one was sent
    in the last NOTICE_INTERVAL seconds (the claim is one conditional write)."""
    if bot.bot_owner_id is None:
        return
    now = now_seconds()
    try:
        bot.update(actions=[User.webhook_notice_at.set(now)],
                   condition=User.webhook_notice_at.does_not_exist()
                   | (User.webhook_notice_at < now - NOTICE_INTERVAL))
    except UpdateError as error:
        if is_write_condition_failure(error):
            return   # told recently
        raise
    sender = notification_bot(bot.realm_id)
    try:
        check_send_message(Principal(sender.realm_id, sender.user_id, sender.email,
                                     sender.role, True),
                           message_type="private", to=json.dumps([bot.bot_owner_id]),
                           topic=None, content=text, client="Internal")
    except ApiError as error:   # the owner left: nobody to tell
        logger.warning("webhook notice refused", extra={"error": error.msg})
