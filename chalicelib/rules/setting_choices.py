"""The allowed values of personal settings (§4.2): choices, ranges, names, and the check
of a value against them."""
from __future__ import annotations

from typing import Any, TypedDict
from zoneinfo import available_timezones

from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.rules import email_visibility

# Language codes the server offers, with their English names (user_settings events
# carry the name as `language_name`).
LANGUAGES: dict[str, str] = {
    "ar": "Arabic", "be": "Belarusian", "bg": "Bulgarian", "bqi": "Bakhtiari",
    "ca": "Catalan", "cs": "Czech", "cy": "Welsh", "da": "Danish", "de": "German",
    "el": "Greek", "en": "English", "en_GB": "British English", "eo": "Esperanto",
    "es": "Spanish", "fa": "Persian", "fi": "Finnish", "fr": "French", "gl": "Galician",
    "gu": "Gujarati", "hi": "Hindi", "hu": "Hungarian", "id": "Indonesian", "it": "Italian",
    "ja": "Japanese", "ko": "Korean", "lt": "Lithuanian", "lzh": "Classical Chinese",
    "ml": "Malayalam", "mn": "Mongolian", "nl": "Dutch", "no": "Norwegian", "pl": "Polish",
    "pt": "Portuguese", "pt_BR": "Brazilian Portuguese", "pt_PT": "European Portuguese",
    "ro": "Romanian", "ru": "Russian", "si": "Sinhala", "sr": "Serbian", "sv": "Swedish",
    "ta": "Tamil", "te": "Telugu", "tl": "Tagalog", "tr": "Turkish", "uk": "Ukrainian",
    "vi": "Vietnamese", "zh_Hans": "Simplified Chinese", "zh_Hant": "Traditional Chinese",
    "zh_TW": "Traditional Chinese (Taiwan)",
}

NOTIFICATION_SOUNDS = ["chime", "ding", "zulip", "none"]



class EmojisetChoice(TypedDict):
    key: str
    text: str


EMOJISET_CHOICES: list[EmojisetChoice] = [
    {"key": "google", "text": "Google"},
    {"key": "twitter", "text": "Twitter"},
    {"key": "text", "text": "Plain text"},
]


def language_name(code: str) -> str:
    return LANGUAGES.get(code, code)


# Settings that take one of a few numbers (their meanings are in the reference).
INT_CHOICES: dict[str, frozenset[int]] = {
    "web_channel_default_view": frozenset({1, 2, 3, 4}),
    "web_mark_read_on_scroll_policy": frozenset({1, 2, 3}),   # always, conversations, never
    "color_scheme": frozenset({1, 2, 3}),
    "demote_inactive_streams": frozenset({1, 2, 3}),
    "user_list_style": frozenset({1, 2, 3}),
    "web_stream_unreads_count_display_policy": frozenset({1, 2, 3}),
    # all unread; DMs, mentions and followed topics; DMs and mentions; none
    "desktop_icon_count_display": frozenset({1, 2, 3, 4}),
    "realm_name_in_email_notifications_policy": frozenset({1, 2, 3}),  # auto, always, never
    # topics the user participates in, sends to, starts; never
    "automatically_follow_topics_policy": frozenset({1, 2, 3, 4}),
    "automatically_unmute_topics_in_muted_streams_policy": frozenset({1, 2, 3, 4}),
    # everyone, members, administrators, nobody, moderators (rules/email_visibility.py)
    "email_address_visibility": email_visibility.VALUES,
}
STR_CHOICES: dict[str, frozenset[str]] = {
    # "recent" is the recent view's name from level 454 ("recent_topics" before, still
    # taken from older clients: shown_setting names it for the level).
    "web_home_view": frozenset({"recent", "recent_topics", "inbox", "all_messages"}),
    # Feature level 385. This server marks no resolved-topic notice read by itself, so
    # the setting is kept and shown for clients rather than acted on.
    "resolved_topic_notice_auto_read_policy": frozenset({"always", "except_followed", "never"}),
    "emojiset": frozenset(choice["key"] for choice in EMOJISET_CHOICES),
    "web_animate_image_previews": frozenset({"always", "on_hover", "never"}),
}
INT_RANGES: dict[str, tuple[int, int]] = {"web_font_size_px": (12, 24),
                                          "web_line_height_percent": (100, 200)}


MAX_EMAIL_BATCHING_SECONDS = 7 * 24 * 3600
RECENT_VIEW_LEVEL = 454
_RECENT_VIEW_NAMES = frozenset({"recent", "recent_topics"})


def shown_setting(name: str, value: Any) -> Any:
    """A setting's value as the advertised level names it: the recent view is "recent"
    from level 454, "recent_topics" before (either may be stored)."""
    if name == "web_home_view" and value in _RECENT_VIEW_NAMES:
        return "recent" if level_reached(RECENT_VIEW_LEVEL) else "recent_topics"
    return value


def check_setting(name: str, value: Any) -> None:
    """Raises for a value outside the setting's allowed values (types are checked earlier)."""
    if name in INT_CHOICES and value not in INT_CHOICES[name]:
        raise ApiError(f"{name} has an unacceptable value")
    if (name in STR_CHOICES and value not in STR_CHOICES[name]) or (
            name == "web_home_view" and value == "recent" and not level_reached(
                RECENT_VIEW_LEVEL)):
        raise ApiError(f"{name} has an unacceptable value")
    if name in INT_RANGES and not INT_RANGES[name][0] <= value <= INT_RANGES[name][1]:
        low, high = INT_RANGES[name]
        raise ApiError(f"Invalid {name}: use a value from {low} to {high}")
    if name == "email_notifications_batching_period_seconds" and not (
            0 < value <= MAX_EMAIL_BATCHING_SECONDS):
        raise ApiError(f"{value} seconds is not an allowed email batching period")
    if name == "default_language" and value not in LANGUAGES:
        raise ApiError("default_language is not a supported language")
    if name == "notification_sound" and value not in NOTIFICATION_SOUNDS:
        raise ApiError(f"'{value}' is not one of the notification sounds")
    if name == "timezone" and value != "" and value not in _timezones():
        raise ApiError("Unknown time zone")


_TIMEZONES: set[str] = set()


def _timezones() -> set[str]:
    if not _TIMEZONES:   # reading the zone database takes a while: once per process
        _TIMEZONES.update(available_timezones())
    return _TIMEZONES
