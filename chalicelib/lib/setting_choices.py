"""The allowed values of personal settings that are lists of names (§4.2)."""
from __future__ import annotations

from typing import Any

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

EMOJISET_CHOICES: list[dict[str, Any]] = [
    {"key": "google", "text": "Google"},
    {"key": "twitter", "text": "Twitter"},
    {"key": "text", "text": "Plain text"},
]


def language_name(code: str) -> str:
    return LANGUAGES.get(code, code)
