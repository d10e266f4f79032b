"""Checks of the names people give things (channels, channel folders)."""
from __future__ import annotations

from chalicelib import config
from chalicelib.core.errors import ApiError


def has_control_characters(text: str) -> bool:
    return any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in text)


def check_name(name: str, label: str, limit: int) -> str:
    """The name without surrounding space; `label` names it in errors ("Channel name")."""
    name = name.strip() if isinstance(name, str) else ""
    if not name:
        raise ApiError(f"{label} can't be empty.")
    if len(name) > limit:
        raise ApiError(f"{label} too long (limit: {limit} characters).")
    if has_control_characters(name):
        raise ApiError(f"Invalid character in {label.lower()}: '{name}'.")
    return name


def check_stream_name(name: str) -> str:
    return check_name(name, "Channel name", config.MAX_STREAM_NAME_LENGTH)
