"""Markdown to safe HTML with markdown-it-py (CommonMark, raw HTML disabled), plus mentions,
channel and topic links (rules/channel_links.py) and the realm's linkifiers."""
from __future__ import annotations

import html
import re
import secrets
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from chalicelib.core.files import UPLOAD_LINK
from chalicelib.rules.channel_links import LinkTargets, channel_link_rule
from chalicelib.rules.linkifiers import LinkifierRule, linkify
from chalicelib.rules.markdown_emoji import apply_emoji, text_token
from chalicelib.rules.mentions import (
    CHANNEL_WILDCARDS,
    GROUP_MENTION,
    TOPIC_WILDCARDS,
    USER_MENTION,
)


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    # html=False escapes raw HTML; markdown-it also refuses javascript:/data: links.
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "breaks": True})
    md.enable(["table", "strikethrough"])
    md.inline.ruler.before("emphasis", "channel_links", channel_link_rule)
    md.core.ruler.push("linkifiers", _apply_linkifiers)
    md.core.ruler.push("emoji", apply_emoji)
    md.core.ruler.push("media", _apply_media)
    return md


# Image syntax shows only files uploaded here (the reference's level 467): an image of
# another site would have every reader's client fetch it from there.
UPLOADED_IMAGE_PREFIX = "/user_uploads/"


def _apply_media(state: StateCore) -> None:
    """`![text](url)` of a file uploaded here stays an image; of any other URL it becomes a
    link to it named by the text (the text alone inside another link). A link to an
    uploaded audio file becomes an audio player (level 405; env["audio"]: the upload
    paths that are audio)."""
    audio: set[str] = state.env.get("audio") or set()
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        tokens = block.children
        depth = 0
        index = 0
        while index < len(tokens):
            token = tokens[index]
            depth += token.type == "link_open"
            depth -= token.type == "link_close"
            source = str(token.attrGet("src") or "")
            if token.type == "image" and not source.startswith(UPLOADED_IMAGE_PREFIX):
                # The image's text, formatting included; without any, its address.
                text = list(token.children or ()) or [text_token(token.content or source)]
                if depth > 0:
                    children += text
                else:
                    opening = Token("link_open", "a", 1)
                    opening.attrs = {"href": source}
                    children += [opening, *text, Token("link_close", "a", -1)]
            elif token.type == "link_open" and _upload_path(token) in audio:
                end = next(i for i in range(index, len(tokens))
                           if tokens[i].type == "link_close")
                title = "".join(t.content for t in tokens[index + 1:end])
                player = Token("html_inline", "", 0)
                player.content = ('<audio controls preload="metadata" src="'
                                  f'{html.escape(str(token.attrGet("href")))}" '
                                  f'title="{html.escape(title)}"></audio>')
                children.append(player)
                depth -= 1   # its link_close is skipped with it
                index = end
            else:
                children.append(token)
            index += 1
        block.children = children


def _upload_path(link: Token) -> str | None:
    found = UPLOAD_LINK.search(str(link.attrGet("href") or ""))
    return found.group(1) if found else None


def _apply_linkifiers(state: StateCore) -> None:
    """Text outside links and code becomes links where a linkifier matches; mention
    placeholders (env["protected"]) are left whole."""
    rules: list[LinkifierRule] = state.env.get("linkifiers") or []
    if not rules:
        return
    protected: re.Pattern[str] | None = state.env.get("protected")
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        depth = 0
        for token in block.children:
            depth += token.type == "link_open"
            depth -= token.type == "link_close"
            if token.type != "text" or depth > 0:
                children.append(token)
                continue
            segments = protected.split(token.content) if protected else [token.content]
            for segment in segments:
                if protected and protected.fullmatch(segment):
                    children.append(text_token(segment))
                    continue
                for piece, url in linkify(segment, rules):
                    if url is None:
                        children.append(text_token(piece))
                        continue
                    opening = Token("link_open", "a", 1)
                    opening.attrs = {"href": url}
                    children += [opening, text_token(piece), Token("link_close", "a", -1)]
        block.children = children


def render_markdown(text: str, linkifiers: list[LinkifierRule] | None = None,
                    protected: re.Pattern[str] | None = None,
                    custom_emoji: dict[str, str] | None = None,
                    audio: set[str] | None = None,
                    channel_links: LinkTargets | None = None) -> str:
    """`custom_emoji`: the organization's active emoji names and their image addresses;
    `audio`: the upload paths linked in the text whose files are audio; `channel_links`:
    the channels and topics its link syntax may link (none: the syntax stays text)."""
    if not text:
        return ""
    env = {"linkifiers": linkifiers or [], "protected": protected,
           "custom_emoji": custom_emoji or {}, "audio": audio or set(),
           "channel_links": channel_links}
    html: str = _renderer().render(text, env)
    return html.strip()


@dataclass
class MentionTargets:
    """What the mentions in a message resolved to (only these become mention markup)."""

    users_by_name: dict[str, tuple[int, str]] = field(default_factory=dict)  # lower name ->
    users_by_id: dict[int, str] = field(default_factory=dict)                # id -> name
    groups_by_name: dict[str, tuple[int, str]] = field(default_factory=dict)


def render_message(content: str, targets: MentionTargets,
                   linkifiers: list[LinkifierRule] | None = None,
                   custom_emoji: dict[str, str] | None = None,
                   audio: set[str] | None = None,
                   channel_links: LinkTargets | None = None) -> str:
    """Renders a message; known mentions become spans, unknown ones stay text, linkable
    channels and topics become links, and the realm's linkifiers link what they match."""
    spans: dict[str, str] = {}
    nonce = secrets.token_hex(4)

    def placeholder(markup: str) -> str:
        key = f"tcmention{nonce}x{len(spans)}"
        spans[key] = markup
        return key

    def user(match: re.Match[str]) -> str:
        silent, name, user_id = match.group(1), match.group(2).strip(), match.group(3)
        lowered = name.lower()
        prefix = "" if silent else "@"
        css = "user-mention silent" if silent else "user-mention"
        if user_id and int(user_id) in targets.users_by_id:
            resolved = targets.users_by_id[int(user_id)]
            return placeholder(f'<span class="{css}" data-user-id="{user_id}">'
                               f"{prefix}{html.escape(resolved)}</span>")
        if not silent and lowered in CHANNEL_WILDCARDS:
            return placeholder('<span class="user-mention channel-wildcard-mention" '
                               f'data-user-id="*">@{html.escape(name)}</span>')
        if not silent and lowered in TOPIC_WILDCARDS:
            return placeholder('<span class="topic-mention">@topic</span>')
        if lowered in targets.users_by_name:
            found_id, resolved = targets.users_by_name[lowered]
            return placeholder(f'<span class="{css}" data-user-id="{found_id}">'
                               f"{prefix}{html.escape(resolved)}</span>")
        return match.group(0)

    def group(match: re.Match[str]) -> str:
        silent, name = match.group(1), match.group(2).strip()
        if name.lower() not in targets.groups_by_name:
            return match.group(0)
        group_id, resolved = targets.groups_by_name[name.lower()]
        css = "user-group-mention silent" if silent else "user-group-mention"
        return placeholder(f'<span class="{css}" data-user-group-id="{group_id}">'
                           f"{'' if silent else '@'}{html.escape(resolved)}</span>")

    text = USER_MENTION.sub(user, content)
    text = GROUP_MENTION.sub(group, text)
    protected = re.compile(f"(tcmention{nonce}x[0-9]+)")
    rendered = render_markdown(text, linkifiers, protected, custom_emoji, audio,
                               channel_links)
    for key, markup in spans.items():
        rendered = rendered.replace(key, markup)
    return rendered
