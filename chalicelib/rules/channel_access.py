"""Who reads a channel without subscribing, by role and the channel's privacy: the rule
every path that can reveal a channel asks, directly or through
actions/channels/reads/permissions.py (which adds a private channel's group settings).

As the reference: a web-public channel is readable by everyone in the organization,
guests included; a public one by members and above; a private one by nobody unless
subscribed (or through its groups, never for guests). Knowing of a channel reaches the
same people, plus organization administrators for a private one (docs/visibility.md).
"""
from __future__ import annotations

from typing import Protocol

from chalicelib.core.principal import ROLE_MEMBER


class ChannelPrivacy(Protocol):
    """What the rule reads of a channel (a Stream)."""

    invite_only: bool
    is_web_public: bool


def reads_public_channels(role: int | None) -> bool:
    """Members and above read every public channel without subscribing; guests do not
    (the reference's can_access_public_streams). None: a queue registered before queues
    kept their owner's role, treated as it always was."""
    return role is None or role <= ROLE_MEMBER


def readable_unsubscribed(role: int | None, stream: ChannelPrivacy) -> bool:
    """Whether a user of this role reads the channel without a subscription."""
    return bool(stream.is_web_public) or (not stream.invite_only
                                          and reads_public_channels(role))


# How far knowing of a channel reaches, narrowest first; each reaches everyone the one
# before it does: subscribers, administrators and the channel's groups (private), every
# member and above too (public), everyone in the organization (web-public).
PRIVATE, PUBLIC, WEB_PUBLIC = 0, 1, 2


def visibility(stream: ChannelPrivacy) -> int:
    return WEB_PUBLIC if stream.is_web_public else PRIVATE if stream.invite_only else PUBLIC
