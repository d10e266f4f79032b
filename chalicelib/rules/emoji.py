"""Emoji identification (§2.2): the unicode name table, the service's extra emoji, checks.

Pure functions: custom emoji are looked up by the caller (chalicelib.actions.realm.emoji)
and passed in, so the checks run without AWS.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

# The `emoji` package ships the Unicode CLDR names and the common aliases (":grinning:").
from emoji import EMOJI_DATA, STATUS

UNICODE_EMOJI = "unicode_emoji"
REALM_EMOJI = "realm_emoji"
SERVICE_EXTRA_EMOJI = "service_extra_emoji"
REACTION_TYPES = (UNICODE_EMOJI, REALM_EMOJI, SERVICE_EXTRA_EMOJI)
# As the reference's extra emoji ("zulip"), named after the service; code = name.
SERVICE_EXTRA_EMOJI_NAMES = frozenset({"service"})
VARIATION_SELECTOR_16 = 0xFE0F


@dataclass(frozen=True)
class EmojiData:
    """What a name stands for: its code within the namespace of its reaction type."""

    emoji_code: str
    reaction_type: str


@dataclass(frozen=True)
class CustomEmoji:
    """The facts about one custom emoji that the checks need."""

    emoji_id: int
    name: str
    deactivated: bool


def emoji_code(text: str) -> str:
    """Dash-separated lowercase hex codepoints without U+FE0F: "1f1fa-1f1f8"."""
    return "-".join(f"{ord(c):x}" for c in text if ord(c) != VARIATION_SELECTOR_16)


def _name(cldr: str) -> str:
    return cldr.strip(":").lower()


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], dict[str, str]]:
    """(name → code, code → canonical name), from the fully-qualified sequences."""
    entries = [(emoji_code(text), data) for text, data in EMOJI_DATA.items()
               if data["status"] == STATUS["fully_qualified"]]
    name_to_code: dict[str, str] = {}
    code_to_name: dict[str, str] = {}
    for code, data in entries:
        name_to_code.setdefault(_name(data["en"]), code)
        code_to_name.setdefault(code, _name(data["en"]))
    # Aliases second: they never take a name that is some emoji's own name.
    for code, data in entries:
        for alias in data.get("alias", ()):
            name_to_code.setdefault(_name(alias), code)
    return name_to_code, code_to_name


def name_to_codepoint() -> dict[str, str]:
    return _tables()[0]


def codepoint_to_name() -> dict[str, str]:
    return _tables()[1]


def builtin_emoji_data(name: str) -> EmojiData | None:
    """The service's extra emoji or the unicode emoji of this name, if any."""
    if name in SERVICE_EXTRA_EMOJI_NAMES:
        return EmojiData(name, SERVICE_EXTRA_EMOJI)
    code = name_to_codepoint().get(name)
    return EmojiData(code, UNICODE_EMOJI) if code is not None else None


def is_builtin_emoji_name(name: str) -> bool:
    return name in name_to_codepoint() or name in SERVICE_EXTRA_EMOJI_NAMES


def check_emoji(name: str, code: str, reaction_type: str,
                custom: CustomEmoji | None = None) -> None:
    """Raises EmojiError unless name, code and type name one existing emoji.

    `custom` is the custom emoji whose id is `code` (None when there is none); it
    matters only for realm_emoji.
    """
    if reaction_type == REALM_EMOJI:
        if custom is None or str(custom.emoji_id) != code:
            raise EmojiError("No such custom emoji.")
        if custom.name != name:
            raise EmojiError("The name does not match that custom emoji.")
        if custom.deactivated:
            raise EmojiError("That custom emoji was removed.")
    elif reaction_type == SERVICE_EXTRA_EMOJI:
        if code not in SERVICE_EXTRA_EMOJI_NAMES:
            raise EmojiError("Unknown emoji code.")
        if name != code:
            raise EmojiError("Unknown emoji name.")
    elif reaction_type == UNICODE_EMOJI:
        if code not in codepoint_to_name():
            raise EmojiError("Unknown emoji code.")
        if name_to_codepoint().get(name) != code:
            raise EmojiError("Unknown emoji name.")
    else:
        raise EmojiError("Unknown emoji type.")


class EmojiError(ValueError):
    """An emoji name, code or type that does not identify an emoji; the message says which."""
