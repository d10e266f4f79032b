"""The two outgoing-webhook formats: the native JSON of §4.21 and Slack's form posts.

Pure functions: what to POST for a job, and what a receiver's 2xx answer asks the bot
to say. The answer rules follow the reference: `response_not_required` wins, the legacy
`response_string` comes before `content`, and a JSON `""` (old botservers) means nothing.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

INTERFACE_GENERIC = 1
INTERFACE_SLACK = 2
INTERFACES = {INTERFACE_GENERIC, INTERFACE_SLACK}


@dataclass(frozen=True)
class WebhookRequest:
    body: bytes
    content_type: str


class InvalidReplyError(ValueError):
    """The receiver's 2xx answer cannot be turned into a message."""


class UnsupportedConversationError(ValueError):
    """The bot's interface cannot be told about this kind of conversation."""


def generic_request(*, bot_email: str, bot_full_name: str, token: str, trigger: str,
                    message: dict[str, Any]) -> WebhookRequest:
    """§4.21: `data` is the raw Markdown; `message` is §2.1 with raw Markdown content."""
    body = {"bot_email": bot_email, "bot_full_name": bot_full_name,
            "data": message["content"], "trigger": trigger, "token": token,
            "message": message}
    return WebhookRequest(json.dumps(body).encode(), "application/json")


def slack_request(*, token: str, realm_id: int, realm_host: str, bot_id: int, trigger: str,
                  message: dict[str, Any]) -> WebhookRequest:
    """Slack's legacy outgoing-webhook form fields, for channel messages only."""
    if message["type"] != "stream":
        raise UnsupportedConversationError(
            "Slack outgoing webhooks don't support direct messages.")
    fields = [("token", token), ("team_id", f"T{realm_id}"), ("team_domain", realm_host),
              ("channel_id", f"C{message['stream_id']}"),
              ("channel_name", message["display_recipient"]),
              ("thread_ts", message["timestamp"]), ("timestamp", message["timestamp"]),
              ("user_id", f"U{message['sender_id']}"),
              ("user_name", message["sender_full_name"]), ("text", message["content"]),
              ("trigger_word", trigger), ("service_id", bot_id)]
    return WebhookRequest(urlencode(fields).encode(), "application/x-www-form-urlencoded")


def reply_content(interface: int, body: bytes) -> str | None:
    """What the bot should post in the conversation, or None for nothing."""
    if not body.strip():
        return None   # an empty 2xx answer (e.g. 204) asks for nothing
    try:
        answer = json.loads(body)
    except ValueError:
        raise InvalidReplyError("The bot's answer cannot be parsed as JSON") from None
    if answer == "":
        return None
    if not isinstance(answer, dict):
        raise InvalidReplyError("The bot's answer is not a JSON object")
    if interface == INTERFACE_SLACK:
        content = answer.get("text")
    elif answer.get("response_not_required"):
        return None
    elif "response_string" in answer:
        content = answer["response_string"]
    else:
        content = answer.get("content")
    if content is None:
        return None
    content = str(content)
    return content if content.strip() else None
