"""The missed-message email: one per user and period, each message with its conversation
and a link, and the one-click unsubscribe headers (RFC 8058)."""
from __future__ import annotations

import html
import re
from collections import OrderedDict
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any
from urllib.parse import quote

from chalicelib import config
from chalicelib.aws.email import sender_address
from chalicelib.notifications.tokens import make_token

REALM_NAME_ALWAYS = 2
_WHY = {"private": "you received a direct message",
        "mention": "you were mentioned",
        "wildcard": "everyone in a conversation was mentioned",
        "channel": "you asked for email about a channel",
        "followed": "you follow a topic"}


@dataclass(frozen=True)
class MissedMessage:
    message_id: int
    type: str                       # "stream" or "private"
    sender_name: str
    content: str
    reason: str
    stream_id: int | None = None
    stream_name: str = ""
    topic: str = ""
    others: tuple[str, ...] = ()    # direct messages: the other participants' names
    participant_ids: tuple[int, ...] = ()
    sender_id: int = 0
    sender_email: str = ""          # the API address (its Gravatar is the avatar)
    date_sent: int = 0


def _slug(text: str) -> str:
    return quote(re.sub(r"\s+", "-", text.strip()), safe="-")


def conversation(message: MissedMessage) -> str:
    if message.type == "stream":
        return f"#{message.stream_name} > {message.topic}"
    if len(message.others) > 1:
        return "Group DMs with " + ", ".join(message.others)
    return "DMs with " + (message.others[0] if message.others else message.sender_name)


def message_link(realm_url: str, message: MissedMessage) -> str:
    if message.type == "stream":
        return (f"{realm_url}/#narrow/channel/{message.stream_id}-{_slug(message.stream_name)}"
                f"/topic/{_slug(message.topic)}/near/{message.message_id}")
    ids = ",".join(str(i) for i in message.participant_ids)
    return f"{realm_url}/#narrow/dm/{ids}/near/{message.message_id}"


def unsubscribe_url(realm_url: str, realm_id: int, user_id: int) -> str:
    return f"{realm_url}/accounts/unsubscribe/missed_messages/{make_token(realm_id, user_id)}"


def render(*, to: str, full_name: str, realm: Any, realm_id: int, user_id: int,
           settings: dict[str, Any], messages: list[MissedMessage]) -> EmailMessage:
    """The email for `messages` (oldest first), grouped by conversation."""
    realm_url = config.realm_url(realm.subdomain)
    groups: OrderedDict[str, list[MissedMessage]] = OrderedDict()
    for message in messages:
        groups.setdefault(conversation(message), []).append(message)
    if len(groups) == 1:
        subject = next(iter(groups))
    else:
        subject = f"{len(messages)} missed messages in {len(groups)} conversations"
    if int(settings["realm_name_in_email_notifications_policy"]) == REALM_NAME_ALWAYS:
        subject = f"[{realm.name}] {subject}"
    with_content = bool(settings["message_content_in_email_notifications"])
    unsubscribe = unsubscribe_url(realm_url, realm_id, user_id)
    text = [f"Hi {full_name},", "",
            (f"You missed {len(messages)} message{'s' if len(messages) != 1 else ''} "
            f"in {realm.name}:"), ""]
    parts = [(f"<p>Hi {html.escape(full_name)},</p><p>You missed {len(messages)} "
             f"message{'s' if len(messages) != 1 else ''} in {html.escape(realm.name)}:</p>")]
    for title, items in groups.items():
        text.append(title)
        parts.append(f"<h3>{html.escape(title)}</h3><ul>")
        for message in items:
            link = message_link(realm_url, message)
            line = (f"{message.sender_name}: {message.content}" if with_content
                    else f"{message.sender_name} sent a message")
            text += [f"  {line}", f"  {link}"]
            parts.append(f'<li>{html.escape(line)} <a href="{html.escape(link)}">'
                         "View in the organization</a></li>")
        text.append("")
        parts.append("</ul>")
    reasons = sorted({_WHY.get(m.reason, m.reason) for m in messages})
    footer = [(f"You are getting this email because {' and '.join(reasons)} while you "
              "were away."),
              f"Unsubscribe from missed-message emails: {unsubscribe}",
              f"Notification settings: {realm_url}/#settings/notifications"]
    text += ["--", *footer]
    parts.append("<hr><p>" + html.escape(footer[0]) + f'</p><p><a href="{html.escape(unsubscribe)}">'
                 "Unsubscribe from missed-message emails</a> · "
                 f'<a href="{realm_url}/#settings/notifications">Notification settings</a></p>')
    email = EmailMessage()
    email["From"] = f"{realm.name} <{sender_address()}>"
    email["To"] = to
    email["Subject"] = subject
    email["List-Unsubscribe"] = f"<{unsubscribe}>"
    email["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    email["Auto-Submitted"] = "auto-generated"
    email.set_content("\n".join(text))
    email.add_alternative("<html><body>" + "".join(parts) + "</body></html>", subtype="html")
    return email
