"""Personal settings (§4.2): their defaults. Users store only what they changed."""
from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, Any] = {
    "twenty_four_hour_time": False,
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
    "web_escape_navigates_to_home_view": True,
    "left_side_userlist": False,
    "emojiset": "google",
    "demote_inactive_streams": 1,
    "user_list_style": 2,
    "web_animate_image_previews": "on_hover",
    "web_stream_unreads_count_display_policy": 2,
    "hide_ai_features": False,
    "timezone": "",
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
    "enable_digest_emails": True,
    "enable_marketing_emails": True,
    "enable_login_emails": True,
    "message_content_in_email_notifications": True,
    "pm_content_in_desktop_notifications": True,
    "wildcard_mentions_notify": True,
    "presence_enabled": True,
    "email_address_visibility": 1,
}


def effective_settings(stored: dict[str, Any] | None) -> dict[str, Any]:
    return {**DEFAULTS, **(stored or {})}


def own_settings(stored: dict[str, Any] | None, timezone: str | None) -> dict[str, Any]:
    """A user's settings as their clients see them: the stored map over the defaults,
    with the time zone that the user item keeps beside it."""
    settings = effective_settings(stored)
    settings["timezone"] = timezone or settings.get("timezone", "")
    return settings
