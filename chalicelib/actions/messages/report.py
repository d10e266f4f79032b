"""POST /messages/{message_id}/report: a reader asks the organization's moderators to look
at a message. The notification bot posts the report in the moderation request channel
(the organization setting `moderation_request_channel_id`), as the reference does.

Anyone who may read the message may report it. The report quotes the message in a code
block and every mention in what it quotes is made silent, so a report notifies nobody
the reported message named (a quoted `@**all**` must not reach the whole channel).
"""
from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Literal

from chalicelib import config
from chalicelib.actions.channels.topics import topics_policy
from chalicelib.actions.messages.reads.access import access_message
from chalicelib.actions.messages.reads.report import REPORT_TYPE_LABELS
from chalicelib.actions.messages.send import check_send_message
from chalicelib.actions.users.system_bots import notification_bot
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.models.channels import Stream, get_stream
from chalicelib.models.messages import Message
from chalicelib.models.realms import get_realm, realm_setting
from chalicelib.models.users import User

ReportType = Literal["spam", "harassment", "inappropriate", "norms", "other"]
MAX_DESCRIPTION_LENGTH = 1000   # the reference's limit on the reporter's words
# What is left of a message's length for the quoted message, after the description and
# the report's own lines.
MAX_QUOTED_LENGTH = config.MAX_MESSAGE_LENGTH - MAX_DESCRIPTION_LENGTH - 500
REPORTING_OFF = -1
_LOUD_MENTION = re.compile(r"@(\*)")   # @**user**, @*group*: not the silent @_**user**


def do_report_message(caller: Principal, message_id: int, report_type: str,
                      description: str) -> EmptyResult:
    if report_type == "other" and description == "":
        raise ApiError("Say why you report this message: a description is required when "
                       "report_type is \"other\".")
    realm = get_realm(caller.realm_id)
    channel_id = int(realm_setting(realm, "moderation_request_channel_id"))
    channel = get_stream(caller.realm_id, channel_id) if channel_id != REPORTING_OFF else None
    if channel is None or channel.is_archived:
        raise ApiError("This organization has no moderation request channel, so messages "
                       "cannot be reported.")
    reported = access_message(caller, message_id).message
    bot = notification_bot(caller.realm_id)
    check_send_message(
        Principal(bot.realm_id, bot.user_id, bot.email, bot.role, True),
        message_type="stream", to=str(channel.stream_id), skip_stream_access_check=True,
        topic=_topic(topics_policy(realm, channel), _sender(reported)),
        content=report_text(caller, reported, report_type, description), client="Internal")
    return {}


def _sender(message: Message) -> User:
    return User.get(message.realm_id, message.sender_id)


def _topic(policy: str, sender: User) -> str:
    """One topic per reported person; the only topic of a channel that allows no other."""
    if policy == "empty_topic_only":
        return ""
    name = "".join(ch if ord(ch) >= 32 else " " for ch in sender.full_name)
    return f"Reports: {name}"[:config.MAX_TOPIC_LENGTH]


def silent(text: str) -> str:
    """Mentions made silent: they still name people, but notify nobody."""
    return _LOUD_MENTION.sub(r"@_\1", text)


def report_text(caller: Principal, message: Message, report_type: str,
                description: str) -> str:
    reporter = User.get(caller.realm_id, caller.user_id)
    sender = _sender(message)
    sent = datetime.fromtimestamp(message.date_sent, UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"{_person(reporter)} reported a message {_person(sender)} sent "
             f"{_where(message)} on {sent}.", "",
             f"> **{REPORT_TYPE_LABELS[report_type]}**"]
    lines += [f"> {silent(line)}" for line in description.strip().splitlines()]
    quoted = silent(message.content)
    if len(quoted) > MAX_QUOTED_LENGTH:
        quoted = quoted[:MAX_QUOTED_LENGTH] + "\n[cut short]"
    fence = "`" * max(3, _longest_backtick_run(quoted) + 1)
    lines += ["", "The message:", f"{fence}text", quoted, fence]
    return "\n".join(lines)


def _person(user: User) -> str:
    return f"@_**{user.full_name}|{user.user_id}**"


def _where(message: Message) -> str:
    if message.type == "stream":
        stream: Stream | None = get_stream(message.realm_id, int(message.stream_id))
        name = stream.name if stream is not None else str(message.stream_id)
        return f"in #**{name}>{message.topic}** (message {message.message_id})"
    others = [user_id for user_id in message.recipient_ids if user_id != message.sender_id]
    people = [_person(u) for u in User.batch_get([(message.realm_id, i) for i in others])]
    return (f"to {', '.join(sorted(people))} in a direct message (message "
            f"{message.message_id})" if people else
            f"to themself in a direct message (message {message.message_id})")


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)

