"""`MessageFacts` from a stored message or from a message event."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from chalicelib.models.channels import Stream
from chalicelib.models.messages import Message
from chalicelib.narrow.evaluate import MessageFacts


def message_facts(message: Message, stream: Stream | None,
                  flags: Iterable[str] | None) -> MessageFacts:
    """A stored message; `stream` its channel (if read), `flags` the reader's (if read)."""
    is_channel = message.type == "stream"
    return MessageFacts(
        message_id=message.message_id, is_channel=is_channel,
        stream_id=int(message.stream_id) if is_channel else None,
        channel_name=stream.name if stream is not None else None,
        channel_public=None if stream is None else not stream.invite_only,
        channel_web_public=None if stream is None else stream.is_web_public,
        topic=message.topic if is_channel else "",
        sender_id=message.sender_id, sender_email=None,
        participants=frozenset() if is_channel else frozenset(message.recipient_ids),
        content=message.content, rendered_content=message.rendered_content,
        has_reactions=bool(message.reaction_map()),
        flags=None if flags is None else frozenset(flags))


@dataclass(frozen=True)
class SendFacts:
    """What the send knows of a message beside its event: its raw Markdown and its
    channel's privacy (None: not told)."""

    raw_content: str = ""
    channel_public: bool | None = None
    channel_web_public: bool | None = None


UNTOLD = SendFacts()


def event_facts(message: dict[str, Any], flags: Iterable[str] | None,
                sent: SendFacts = UNTOLD) -> MessageFacts:
    """The `message` of a message event, with the queue owner's flags and what the send
    told beside the event."""
    is_channel = message.get("type") == "stream"
    recipients = message.get("display_recipient")
    participants = frozenset(int(r["id"]) for r in recipients) if (
        not is_channel and isinstance(recipients, list)) else frozenset()
    stream_id = message.get("stream_id")
    return MessageFacts(
        message_id=int(message.get("id", 0)), is_channel=is_channel,
        stream_id=int(stream_id) if is_channel and stream_id is not None else None,
        channel_name=str(recipients) if is_channel else None,
        channel_public=sent.channel_public if is_channel else None,
        channel_web_public=sent.channel_web_public if is_channel else None,
        topic=str(message.get("subject", "")) if is_channel else "",
        sender_id=int(message.get("sender_id", 0)),
        sender_email=message.get("sender_email"),
        participants=participants,
        content=sent.raw_content,
        rendered_content=str(message.get("content", "")),
        has_reactions=bool(message.get("reactions")),
        flags=None if flags is None else frozenset(flags))
