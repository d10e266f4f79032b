"""POST /register's personal settings: the user_settings object, and for clients without
the user_settings_object capability the deprecated top-level copies."""
from __future__ import annotations

from typing import Any, TypedDict

from chalicelib.core.feature_levels import at_advertised_level
from chalicelib.registration.state.context import StateContext
from chalicelib.rules.setting_choices import (
    EMOJISET_CHOICES,
    NOTIFICATION_SOUNDS,
    EmojisetChoice,
)
from chalicelib.rules.user_settings import (
    LegacyDisplaySettings,
    LegacyNotificationSettings,
    UserSettings,
    own_settings,
)


class UserSettingsObject(UserSettings):
    """Every personal setting, with the choices clients offer for two of them."""

    emojiset_choices: list[EmojisetChoice]
    available_notification_sounds: list[str]


class UserSettingsState(TypedDict, total=False):
    """Present when `user_settings` is among the fetch types."""

    user_settings: UserSettingsObject


class LegacyDisplaySettingsState(LegacyDisplaySettings, total=False):
    """Present when `update_display_settings` is among the fetch types and the client
    lacks the user_settings_object capability: the settings that deprecated event
    carried (delivery/filters.py splits the events by the same names)."""

    emojiset_choices: list[EmojisetChoice]


class LegacyNotificationSettingsState(LegacyNotificationSettings, total=False):
    """Present when `update_global_notifications` is among the fetch types and the
    client lacks the user_settings_object capability."""

    available_notification_sounds: list[str]


def user_settings_state(ctx: StateContext) -> UserSettingsState:
    settings = own_settings(ctx.me.stored_settings(), ctx.me.timezone)
    return {"user_settings": at_advertised_level("user_setting", UserSettingsObject(
        **settings, emojiset_choices=list(EMOJISET_CHOICES),
        available_notification_sounds=list(NOTIFICATION_SOUNDS)))}


def legacy_settings_state(ctx: StateContext) -> dict[str, Any]:
    """The deprecated top-level copies (LegacyDisplaySettingsState and
    LegacyNotificationSettingsState); none for clients that read the object."""
    if ctx.capable("user_settings_object"):
        return {}
    settings: dict[str, Any] = {**own_settings(ctx.me.stored_settings(), ctx.me.timezone),
                                "emojiset_choices": list(EMOJISET_CHOICES),
                                "available_notification_sounds": list(NOTIFICATION_SOUNDS)}
    state: dict[str, Any] = {}
    for fetch_type, shape in (("update_display_settings", LegacyDisplaySettingsState),
                              ("update_global_notifications",
                               LegacyNotificationSettingsState)):
        if ctx.wants(fetch_type):
            state.update({name: settings[name] for name in shape.__annotations__})
    return state
