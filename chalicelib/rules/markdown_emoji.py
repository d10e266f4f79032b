"""Emoji in rendered messages, in the markup clients of the API family read: `:name:` and
emoji characters become `<span class="emoji emoji-<code>" role="img" ...>:name:</span>`,
an organization's custom emoji an `<img class="emoji">`, unknown names stay text.

A markdown-it core rule: it rewrites text tokens only, so code spans and blocks keep their
colons, and it runs last, after the linkifiers have taken their links.
"""
from __future__ import annotations

import html
import re

from emoji import EMOJI_DATA, STATUS, emoji_list
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from chalicelib.rules.emoji import codepoint_to_name, emoji_code, name_to_codepoint

# As the reference's syntax: a colon, word characters, dashes or pluses, a colon.
EMOJI_SYNTAX = re.compile(r":([\w\-+]+):")
_KEYCAP = "\u20e3"


def emoji_span(code: str, syntax: str) -> str:
    """The markup of a unicode emoji; `syntax` (":name:") is its text and, without the
    colons and underscores, its title and accessible name."""
    title = html.escape(syntax[1:-1].replace("_", " "))
    return (f'<span aria-label="{title}" class="emoji emoji-{code}" role="img" '
            f'title="{title}">{html.escape(syntax)}</span>')


def custom_emoji_img(source_url: str, syntax: str) -> str:
    title = html.escape(syntax[1:-1].replace("_", " "))
    return (f'<img alt="{html.escape(syntax)}" class="emoji" '
            f'src="{html.escape(source_url)}" title="{title}">')


def has_emoji_syntax(text: str) -> bool:
    """Whether `text` names any emoji that is not built in (only then are the
    organization's custom emoji worth reading)."""
    names = name_to_codepoint()
    return any(m.group(1) not in names for m in EMOJI_SYNTAX.finditer(text))


def _named(name: str, syntax: str, custom: dict[str, str]) -> str | None:
    if name in custom:       # an organization's emoji shadows the built-in one
        return custom_emoji_img(custom[name], syntax)
    code = name_to_codepoint().get(name)
    return emoji_span(code, syntax) if code is not None else None


def _is_text_presentation(found: str) -> bool:
    """A lone symbol that shows as text unless asked (©, ❤, 1⃣): left as typed, as the
    reference leaves characters without the Emoji_Presentation property."""
    bare = found.replace(_KEYCAP, "")
    data = EMOJI_DATA.get(found)
    return len(bare) == 1 and (data is None or data["status"] != STATUS["fully_qualified"])


def _characters(text: str) -> list[Token]:
    tokens: list[Token] = []
    start = 0
    for found in emoji_list(text):
        character = found["emoji"]
        code = emoji_code(character)
        name = codepoint_to_name().get(code)
        if name is None or _is_text_presentation(character):
            continue
        tokens.append(text_token(text[start:found["match_start"]]))
        tokens.append(html_token(emoji_span(code, f":{name}:")))
        start = found["match_end"]
    tokens.append(text_token(text[start:]))
    return tokens


def _rewrite(text: str, custom: dict[str, str]) -> list[Token]:
    tokens: list[Token] = []
    start = 0
    for match in EMOJI_SYNTAX.finditer(text):
        markup = _named(match.group(1), match.group(0), custom)
        if markup is None:
            continue
        tokens += _characters(text[start:match.start()])
        tokens.append(html_token(markup))
        start = match.end()
    tokens += _characters(text[start:])
    return [t for t in tokens if t.type != "text" or t.content]


def apply_emoji(state: StateCore) -> None:
    """The core rule; env["custom_emoji"] maps the organization's active emoji names to
    their image addresses."""
    custom: dict[str, str] = state.env.get("custom_emoji") or {}
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        for token in block.children:
            if token.type == "text" and (":" in token.content or not token.content.isascii()):
                children += _rewrite(token.content, custom)
            else:
                children.append(token)
        block.children = children


def text_token(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def html_token(content: str) -> Token:
    token = Token("html_inline", "", 0)
    token.content = content
    return token
