"""Which messages notify whom, by email and by push: the reference's rules (pure).

A recipient who was away when a message arrived is notified for:
- a direct message (`private`): enable_offline_{email,push}_notifications;
- a mention of them or of a group they are in, or one of their alert words (`mention`):
  the same settings;
- a wildcard mention (`wildcard`): the same, and wildcard_mentions_notify (the
  subscription's own value first), or in a followed topic
  enable_followed_topic_wildcard_mentions_notify; never in a muted channel or topic;
- any message in a channel whose subscription says email_notifications /
  push_notifications (else the user's enable_stream_{email,push}_notifications)
  (`channel`); never if the channel or topic is muted, unless the topic is followed;
- any message in a followed topic (`followed`): enable_followed_topic_{email,push}_
  notifications.
The first reason that applies is kept (the email says why it was sent).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Reason = Literal["private", "mention", "wildcard", "channel", "followed"]
Medium = Literal["email", "push"]
REASONS: tuple[Reason, ...] = ("private", "mention", "wildcard", "channel", "followed")

_OFFLINE = {"email": "enable_offline_email_notifications",
            "push": "enable_offline_push_notifications"}
_CHANNEL = {"email": "enable_stream_email_notifications",
            "push": "enable_stream_push_notifications"}
_FOLLOWED = {"email": "enable_followed_topic_email_notifications",
             "push": "enable_followed_topic_push_notifications"}
MENTION_FLAGS = frozenset({"mentioned", "has_alert_word"})
WILDCARD_FLAGS = frozenset({"stream_wildcard_mentioned", "topic_wildcard_mentioned"})


@dataclass(frozen=True)
class Recipient:
    """What the rules need to know of one recipient of one message."""

    flags: frozenset[str]
    settings: dict[str, Any]                 # effective personal settings
    private: bool                            # a direct message
    subscription: dict[str, Any] | None = None   # channel messages: the subscription
    topic_policy: int = 0                    # 0 inherit, 1 muted, 2 unmuted, 3 followed


def reason_for(recipient: Recipient, medium: Medium) -> Reason | None:
    """Why this recipient gets `medium` for the message, or None."""
    settings = recipient.settings
    offline = bool(settings[_OFFLINE[medium]])
    if recipient.private:
        return "private" if offline else None
    if recipient.flags & MENTION_FLAGS and offline:
        return "mention"
    subscription = recipient.subscription or {}
    followed = recipient.topic_policy == 3
    muted = recipient.topic_policy == 1 or (
        bool(subscription.get("is_muted")) and recipient.topic_policy not in (2, 3))
    if recipient.flags & WILDCARD_FLAGS and offline and not muted:
        if followed and settings["enable_followed_topic_wildcard_mentions_notify"]:
            return "wildcard"
        own = subscription.get("wildcard_mentions_notify")
        if own if own is not None else settings["wildcard_mentions_notify"]:
            return "wildcard"
    if followed and settings[_FOLLOWED[medium]]:
        return "followed"
    if not muted:
        own = subscription.get(f"{medium}_notifications")
        if own if own is not None else settings[_CHANNEL[medium]]:
            return "channel"
    return None


def still_wanted(reason: str, settings: dict[str, Any], medium: Medium) -> bool:
    """When the period ends: does the user's setting for this reason still hold? (A
    subscription's own value was decided when the message arrived.)"""
    if reason in ("private", "mention", "wildcard"):
        return bool(settings[_OFFLINE[medium]])
    if reason == "followed":
        return bool(settings[_FOLLOWED[medium]])
    return reason == "channel"
