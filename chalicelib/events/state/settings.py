"""POST /register's personal settings: the user_settings object, and for clients without
the user_settings_object capability the deprecated top-level copies."""
from __future__ import annotations

from typing import Any, TypedDict

from chalicelib.core.feature_levels import at_advertised_level
from chalicelib.events.state.context import StateContext
from chalicelib.lib.setting_choices import (
    EMOJISET_CHOICES,
    NOTIFICATION_SOUNDS,
    EmojisetChoice,
)
from chalicelib.lib.user_settings import UserSettings, own_settings


class UserSettingsObject(UserSettings):
    """Every personal setting, with the choices clients offer for two of them."""

    emojiset_choices: list[EmojisetChoice]
    available_notification_sounds: list[str]


class UserSettingsState(TypedDict, total=False):
    """Present when `user_settings` is among the fetch types."""

    user_settings: UserSettingsObject


class LegacyDisplaySettingsState(TypedDict, total=False):
    """Present when `update_display_settings` is among the fetch types and the client
    lacks the user_settings_object capability: the settings that deprecated event
    carried (events/filters.py splits the events the same way)."""

    color_scheme: int
    default_language: str
    demote_inactive_streams: int
    emojiset: str
    enable_drafts_synchronization: bool
    enter_sends: bool
    fluid_layout_width: bool
    high_contrast_mode: bool
    left_side_userlist: bool
    starred_message_counts: bool
    timezone: str
    translate_emoticons: bool
    twenty_four_hour_time: bool
    web_home_view: str
    emojiset_choices: list[EmojisetChoice]


class LegacyNotificationSettingsState(TypedDict, total=False):
    """Present when `update_global_notifications` is among the fetch types and the
    client lacks the user_settings_object capability."""

    desktop_icon_count_display: int
    email_notifications_batching_period_seconds: int
    enable_desktop_notifications: bool
    enable_digest_emails: bool
    enable_login_emails: bool
    enable_marketing_emails: bool
    enable_offline_email_notifications: bool
    enable_offline_push_notifications: bool
    enable_online_push_notifications: bool
    enable_sounds: bool
    enable_stream_audible_notifications: bool
    enable_stream_desktop_notifications: bool
    enable_stream_email_notifications: bool
    enable_stream_push_notifications: bool
    message_content_in_email_notifications: bool
    notification_sound: str
    pm_content_in_desktop_notifications: bool
    presence_enabled: bool
    realm_name_in_email_notifications_policy: int
    wildcard_mentions_notify: bool
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
