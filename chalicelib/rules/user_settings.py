"""Personal settings (§4.2): their shape and defaults. Users store only what they changed."""
from __future__ import annotations

from typing import Any, NotRequired, TypedDict, cast

from chalicelib.rules.setting_choices import shown_setting


class DefaultableUserSettings(TypedDict):
    """The personal settings an organization sets defaults for, which new users start
    with (PATCH /realm/user_settings_defaults takes each as a parameter)."""

    twenty_four_hour_time: bool
    web_mark_read_on_scroll_policy: int
    web_channel_default_view: int
    starred_message_counts: bool
    receives_typing_notifications: bool
    web_suggest_update_timezone: bool
    fluid_layout_width: bool
    high_contrast_mode: bool
    web_font_size_px: int
    web_line_height_percent: int
    color_scheme: int
    enable_drafts_synchronization: bool
    translate_emoticons: bool
    display_emoji_reaction_users: bool
    web_home_view: str
    web_escape_navigates_to_home_view: bool
    left_side_userlist: bool
    emojiset: str
    demote_inactive_streams: int
    user_list_style: int
    web_animate_image_previews: str
    web_stream_unreads_count_display_policy: int
    # NotRequired in answers: sent once the advertised level reaches theirs
    web_left_sidebar_unreads_count_summary: NotRequired[bool]     # level 398
    web_left_sidebar_show_channel_folders: NotRequired[bool]      # level 411
    web_inbox_show_channel_folders: NotRequired[bool]             # level 431
    hide_ai_features: bool
    enter_sends: bool
    web_navigate_to_sent_message: bool
    enable_stream_desktop_notifications: bool
    enable_stream_email_notifications: bool
    enable_stream_push_notifications: bool
    enable_stream_audible_notifications: bool
    notification_sound: str
    enable_desktop_notifications: bool
    enable_sounds: bool
    email_notifications_batching_period_seconds: int
    enable_offline_email_notifications: bool
    enable_offline_push_notifications: bool
    enable_online_push_notifications: bool
    enable_followed_topic_desktop_notifications: bool
    enable_followed_topic_email_notifications: bool
    enable_followed_topic_push_notifications: bool
    enable_followed_topic_audible_notifications: bool
    enable_followed_topic_wildcard_mentions_notify: bool
    enable_digest_emails: bool
    message_content_in_email_notifications: bool
    pm_content_in_desktop_notifications: bool
    wildcard_mentions_notify: bool
    desktop_icon_count_display: int
    realm_name_in_email_notifications_policy: int
    automatically_follow_topics_policy: int
    automatically_unmute_topics_in_muted_streams_policy: int
    automatically_follow_topics_where_mentioned: bool
    presence_enabled: bool
    send_private_typing_notifications: bool
    send_stream_typing_notifications: bool
    send_read_receipts: bool
    email_address_visibility: int


class UserSettings(DefaultableUserSettings):
    """Every personal setting, as a user's clients see it (the reference's list): the
    defaultable ones and those each user sets alone."""

    default_language: str
    resolved_topic_notice_auto_read_policy: str
    timezone: str
    enable_marketing_emails: bool
    enable_login_emails: bool
    allow_private_data_export: bool


class LegacyDisplaySettings(TypedDict, total=False):
    """The settings the deprecated update_display_settings event carried, as the reference
    split them (settings added after the user_settings event exist only in that event):
    the event filters split changes by these names, POST /register's top-level copies
    show them."""

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


class LegacyNotificationSettings(TypedDict, total=False):
    """The settings the deprecated update_global_notifications event carried."""

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


LEGACY_DISPLAY_SETTINGS = frozenset(LegacyDisplaySettings.__annotations__)
LEGACY_NOTIFICATION_SETTINGS = frozenset(LegacyNotificationSettings.__annotations__)


DEFAULTS: UserSettings = {
    "twenty_four_hour_time": False,
    "web_mark_read_on_scroll_policy": 1,
    "web_channel_default_view": 1,
    "starred_message_counts": True,
    "receives_typing_notifications": True,
    "web_suggest_update_timezone": True,
    "fluid_layout_width": False,
    "high_contrast_mode": False,
    "web_font_size_px": 16,
    "web_line_height_percent": 140,
    "color_scheme": 1,
    "enable_drafts_synchronization": True,
    "translate_emoticons": False,
    "display_emoji_reaction_users": True,
    "default_language": "en",
    "web_home_view": "inbox",
    "resolved_topic_notice_auto_read_policy": "except_followed",
    "web_escape_navigates_to_home_view": True,
    "left_side_userlist": False,
    "emojiset": "google",
    "demote_inactive_streams": 1,
    "user_list_style": 2,
    "web_animate_image_previews": "on_hover",
    "web_stream_unreads_count_display_policy": 2,
    "web_left_sidebar_unreads_count_summary": True,
    "web_left_sidebar_show_channel_folders": True,
    "web_inbox_show_channel_folders": True,
    "hide_ai_features": False,
    "timezone": "",
    "enter_sends": False,
    "web_navigate_to_sent_message": True,
    "enable_stream_desktop_notifications": False,
    "enable_stream_email_notifications": False,
    "enable_stream_push_notifications": False,
    "enable_stream_audible_notifications": False,
    "notification_sound": "zulip",
    "enable_desktop_notifications": True,
    "enable_sounds": True,
    "email_notifications_batching_period_seconds": 120,
    "enable_offline_email_notifications": True,
    "enable_offline_push_notifications": True,
    "enable_online_push_notifications": True,
    "enable_followed_topic_desktop_notifications": True,
    "enable_followed_topic_email_notifications": True,
    "enable_followed_topic_push_notifications": True,
    "enable_followed_topic_audible_notifications": True,
    "enable_followed_topic_wildcard_mentions_notify": True,
    "enable_digest_emails": True,
    "enable_marketing_emails": True,
    "enable_login_emails": True,
    "message_content_in_email_notifications": True,
    "pm_content_in_desktop_notifications": True,
    "wildcard_mentions_notify": True,
    "desktop_icon_count_display": 1,
    "realm_name_in_email_notifications_policy": 1,
    "automatically_follow_topics_policy": 3,
    "automatically_unmute_topics_in_muted_streams_policy": 2,
    "automatically_follow_topics_where_mentioned": True,
    "presence_enabled": True,
    "send_private_typing_notifications": True,
    "send_stream_typing_notifications": True,
    "send_read_receipts": True,
    "allow_private_data_export": False,
    "email_address_visibility": 1,
}


# Settings whose values are integers: DynamoDB hands stored numbers back as Decimals.
_INTEGER_SETTINGS = frozenset(name for name, value in DEFAULTS.items() if type(value) is int)


def effective_settings(stored: dict[str, Any] | None) -> dict[str, Any]:
    return {**DEFAULTS, **(stored or {})}


def own_settings(stored: dict[str, Any] | None, timezone: str | None) -> UserSettings:
    """A user's settings as their clients see them: the stored map over the defaults,
    with the time zone that the user item keeps beside it."""
    settings: dict[str, Any] = dict(DEFAULTS)
    for name, value in (stored or {}).items():
        if name in settings:   # a setting since retired stays out of the shape
            settings[name] = int(value) if name in _INTEGER_SETTINGS else \
                shown_setting(name, value)
    settings["timezone"] = timezone or settings["timezone"]
    return cast(UserSettings, settings)
