"""The terms a stored message is indexed under."""
from __future__ import annotations

from chalicelib.models.messages import Message
from chalicelib.search.text import terms_of


def channel_term(stream_id: int) -> str:
    """A term every message of the channel carries (no word contains ':'), so a search
    in one channel walks the channel's list when it is sparser than the words'."""
    return f"c:{stream_id}"


def message_terms(message: Message) -> set[str]:
    """Content (raw Markdown) and, for a channel message, its topic and its channel."""
    terms = terms_of(message.content)
    if message.type == "stream":
        terms |= terms_of(message.topic)
        if message.stream_id is not None:
            terms.add(channel_term(message.stream_id))
    return terms
