"""Markdown to safe HTML with markdown-it-py (CommonMark, raw HTML disabled), plus mentions
and the realm's linkifiers."""
from __future__ import annotations

import html
import re
import secrets
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from chalicelib.rules.linkifiers import LinkifierRule, linkify
from chalicelib.rules.markdown_emoji import apply_emoji, text_token
from chalicelib.rules.markdown_time import global_time
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
    md.inline.ruler.before("autolink", "global_time", global_time)
    md.core.ruler.push("linkifiers", _apply_linkifiers)
    md.core.ruler.push("emoji", apply_emoji)
    return md


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
                    custom_emoji: dict[str, str] | None = None) -> str:
    """`custom_emoji`: the organization's active emoji names and their image addresses."""
    if not text:
        return ""
    env = {"linkifiers": linkifiers or [], "protected": protected,
           "custom_emoji": custom_emoji or {}}
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
                   custom_emoji: dict[str, str] | None = None) -> str:
    """Renders a message; known mentions become spans, unknown ones stay text, and the
    realm's linkifiers link what they match."""
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
    rendered = render_markdown(text, linkifiers, protected, custom_emoji)
    for key, markup in spans.items():
        rendered = rendered.replace(key, markup)
    return rendered
