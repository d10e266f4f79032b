"""Channel, topic and message links in message Markdown, in the reference's syntax and
markup (pure: what they resolve to is looked up by actions/messages/reads/channel_links.py).

    #**channel**            <a class="stream" data-stream-id=.. href="/#narrow/channel/ID-slug">
    #**channel>topic**      <a class="stream-topic" ... href=".../topic/slug[/with/LATEST]">
    #**channel>topic@123**  <a class="message-link" href=".../topic/slug/near/123">

A link is made only for a channel the sender may read (the resolver decides); anything
else stays as typed (and its `**` then make it bold, as on the reference). Names match
exactly, as the reference looks them up. A message makes links to at most
MAX_LINKED_CHANNELS channels and MAX_LINKED_TOPICS topics; later ones stay text.

Addresses are encoded as the reference's hash_util_encode: percent-encoding of every
character but letters, digits and `_.-~`, then `.` written `%2E`, then `%` written `.`;
a channel's slug has its spaces as dashes first.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote

from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

MAX_LINKED_CHANNELS = 20   # distinct channel names one message may link
MAX_LINKED_TOPICS = 20     # distinct topics whose latest message one message looks up
EMPTY_TOPIC_TEXT = "general chat"   # the reference's fallback name of the empty topic
MESSAGE_LINK_SUFFIX = " @ \U0001f4ac"   # " @ 💬", after a message link's topic

# Whitespace, an opening quote or bracket, a slash or `<` (or nothing) before the `#`.
_ALLOWED_BEFORE = re.compile(r"[\s'\"({\[/<]")
MESSAGE_LINK = re.compile(r"#\*\*(?P<channel>[^*>]+)>(?P<topic>[^*]*)@(?P<id>\d+)\*\*")
TOPIC_LINK = re.compile(r"#\*\*(?P<channel>[^*>]+)>(?P<topic>[^*]*)\*\*")
CHANNEL_LINK = re.compile(r"#\*\*(?P<channel>[^*]+)\*\*")


@dataclass
class LinkTargets:
    """What a message's links resolve to, for its sender."""

    channels: dict[str, int] = field(default_factory=dict)   # exact name -> channel id
    # (channel name, lower-cased topic) -> the topic's latest message the sender may read
    latest: dict[tuple[str, str], int] = field(default_factory=dict)


@dataclass
class LinkedNames:
    """The channel names and (channel, topic) pairs a message's syntax may link; a
    superset (code spans count too), bounded by the MAX_ constants."""

    channels: list[str] = field(default_factory=list)
    topics: list[tuple[str, str]] = field(default_factory=list)


def linked_names(content: str) -> LinkedNames:
    found = LinkedNames()
    if "#**" not in content:
        return found
    topics = list(TOPIC_LINK.finditer(content))
    names = [m.group("channel") for m in CHANNEL_LINK.finditer(content)]
    # Whole names with ">" (a channel may be called so) come after the others, so topic
    # links cannot crowd the channels out of the bound.
    for name in [m.group("channel") for m in topics] + sorted(names, key=lambda n: ">" in n):
        if name not in found.channels and len(found.channels) < MAX_LINKED_CHANNELS:
            found.channels.append(name)
    for match in topics:
        pair = (match.group("channel"), match.group("topic").lower())
        if pair[0] in found.channels and pair not in found.topics \
                and len(found.topics) < MAX_LINKED_TOPICS:
            found.topics.append(pair)
    return found


def hash_encode(text: str) -> str:
    """A name as one component of a `#narrow/...` address (the reference's encoding)."""
    return quote(text, safe="").replace(".", "%2E").replace("%", ".")


def channel_slug(stream_id: int, name: str) -> str:
    return f"{stream_id}-{hash_encode(name.replace(' ', '-'))}"


def channel_url(stream_id: int, name: str) -> str:
    return f"/#narrow/channel/{channel_slug(stream_id, name)}"


def topic_url(stream_id: int, name: str, topic: str) -> str:
    return f"{channel_url(stream_id, name)}/topic/{hash_encode(topic)}"


def _text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attribute(value: str) -> str:
    return _text(value).replace('"', "&quot;")


def _topic_text(channel: str, topic: str) -> str:
    shown = f"<em>{EMPTY_TOPIC_TEXT}</em>" if topic == "" else _text(topic)
    return f"#{_text(channel)} &gt; {shown}"


def channel_markup(stream_id: int, name: str) -> str:
    return (f'<a class="stream" data-stream-id="{stream_id}" '
            f'href="{_attribute(channel_url(stream_id, name))}">#{_text(name)}</a>')


def topic_markup(stream_id: int, name: str, topic: str, latest: int | None) -> str:
    """`latest`: the topic's latest message the sender may read (level 400: the link
    opens the conversation with it, /with/); None for a topic with none."""
    href = topic_url(stream_id, name, topic) + (f"/with/{latest}" if latest is not None else "")
    return (f'<a class="stream-topic" data-stream-id="{stream_id}" '
            f'href="{_attribute(href)}">{_topic_text(name, topic)}</a>')


def message_markup(stream_id: int, name: str, topic: str, message_id: int) -> str:
    href = f"{topic_url(stream_id, name, topic)}/near/{message_id}"
    return (f'<a class="message-link" href="{_attribute(href)}">'
            f"{_topic_text(name, topic)}{MESSAGE_LINK_SUFFIX}</a>")


def _markup(match: re.Match[str], targets: LinkTargets) -> str | None:
    """The link the match makes, or None when its channel is not one to link."""
    name = match.group("channel")
    stream_id = targets.channels.get(name)
    if stream_id is None:
        return None
    if match.re is CHANNEL_LINK:
        return channel_markup(stream_id, name)
    topic = match.group("topic")
    if match.re is MESSAGE_LINK:
        return message_markup(stream_id, name, topic, int(match.group("id")))
    return topic_markup(stream_id, name, topic, targets.latest.get((name, topic.lower())))


def channel_link_rule(state: StateInline, silent: bool) -> bool:
    """markdown-it inline rule: a link syntax at this `#` becomes its link (code spans,
    escapes and Markdown links' text never reach it); env["channel_links"] resolves."""
    targets: LinkTargets | None = state.env.get("channel_links")
    pos = state.pos
    if targets is None or not targets.channels or state.linkLevel > 0 \
            or not state.src.startswith("#**", pos) \
            or (pos > 0 and not _ALLOWED_BEFORE.match(state.src[pos - 1])):
        return False
    for pattern in (MESSAGE_LINK, TOPIC_LINK, CHANNEL_LINK):   # the reference's order
        match = pattern.match(state.src, pos, state.posMax)
        markup = _markup(match, targets) if match else None
        if match and markup:
            if not silent:
                token: Token = state.push("html_inline", "", 0)
                token.content = markup
            state.pos = match.end()
            return True
    return False
