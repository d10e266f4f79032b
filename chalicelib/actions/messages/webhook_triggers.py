"""Outgoing webhooks (§4.21): which bots a message triggers, and their delivery jobs.

A triggering message writes one job record per bot into the outbox, in the message's
own transaction, carrying the message as receivers see it (§2.1, raw Markdown); the
fan-out sends the jobs to SQS (`jobs.py`) and the SQS worker delivers each one
(`delivery.py`).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pynamodb.transactions import TransactWrite

from chalicelib.actions.messages.reads.dicts import MessageDict
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.delivery.records import OUTGOING_WEBHOOK_RECORD, WebhookJobRecord
from chalicelib.models.users import BOT_TYPE_OUTGOING_WEBHOOK, User
from chalicelib.rules.mentions import USER_MENTION


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


def add_webhook_triggers(tx: TransactWrite, realm_id: int, event_message: MessageDict,
                         raw_content: str, triggers: list[tuple[User, str]]) -> None:
    """Adds one job per triggered bot to the sending transaction (`event_message` is the
    message event's dict, `raw_content` its Markdown)."""
    if not triggers:
        return
    message = receiver_message(event_message, raw_content)
    for bot, trigger in triggers:
        job: WebhookJobRecord = {"type": OUTGOING_WEBHOOK_RECORD, "realm_id": realm_id,
                                 "message_id": message["id"], "bot_id": bot.user_id,
                                 "trigger": trigger, "message": message}
        add_event(tx, realm_id, job, to_users([]))


def receiver_message(event_message: MessageDict, raw_content: str) -> dict[str, Any]:
    """The message as receivers get it (§2.1): raw Markdown in `content`, and the HTML
    (the event's `content`) in `rendered_content`, which only this payload carries."""
    message: dict[str, Any] = dict(event_message)
    message.update(content=raw_content, content_type="text/x-markdown",
                   rendered_content=event_message["content"])
    return message
