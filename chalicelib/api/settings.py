"""PATCH /settings: the current user's personal settings (§4.2)."""
from __future__ import annotations

from chalicelib.actions.users.settings import update_own_settings
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import sent_values

bp = ApiBlueprint(__name__)


@bp.endpoint("/settings", "PATCH")
def update_settings(
    caller: Principal, *,
    full_name: str | None = None,
    email: str | None = None,
    old_password: str | None = None,
    new_password: str | None = None,
    presence_enabled: bool | None = None,
    twenty_four_hour_time: bool | None = None,
    web_mark_read_on_scroll_policy: int | None = None,
    web_channel_default_view: int | None = None,
    starred_message_counts: bool | None = None,
    receives_typing_notifications: bool | None = None,
    web_suggest_update_timezone: bool | None = None,
    fluid_layout_width: bool | None = None,
    high_contrast_mode: bool | None = None,
    web_font_size_px: int | None = None,
    web_line_height_percent: int | None = None,
    color_scheme: int | None = None,
    enable_drafts_synchronization: bool | None = None,
    translate_emoticons: bool | None = None,
    display_emoji_reaction_users: bool | None = None,
    default_language: str | None = None,
    web_home_view: str | None = None,
    web_escape_navigates_to_home_view: bool | None = None,
    left_side_userlist: bool | None = None,
    emojiset: str | None = None,
    demote_inactive_streams: int | None = None,
    user_list_style: int | None = None,
    web_animate_image_previews: str | None = None,
    web_stream_unreads_count_display_policy: int | None = None,
    hide_ai_features: bool | None = None,
    timezone: str | None = None,
    enter_sends: bool | None = None,
    web_navigate_to_sent_message: bool | None = None,
    enable_stream_desktop_notifications: bool | None = None,
    enable_stream_email_notifications: bool | None = None,
    enable_stream_push_notifications: bool | None = None,
    enable_stream_audible_notifications: bool | None = None,
    notification_sound: str | None = None,
    enable_desktop_notifications: bool | None = None,
    enable_sounds: bool | None = None,
    email_notifications_batching_period_seconds: int | None = None,
    enable_offline_email_notifications: bool | None = None,
    enable_offline_push_notifications: bool | None = None,
    enable_online_push_notifications: bool | None = None,
    enable_followed_topic_desktop_notifications: bool | None = None,
    enable_followed_topic_email_notifications: bool | None = None,
    enable_followed_topic_push_notifications: bool | None = None,
    enable_followed_topic_audible_notifications: bool | None = None,
    enable_digest_emails: bool | None = None,
    enable_marketing_emails: bool | None = None,
    enable_login_emails: bool | None = None,
    message_content_in_email_notifications: bool | None = None,
    pm_content_in_desktop_notifications: bool | None = None,
    wildcard_mentions_notify: bool | None = None,
    enable_followed_topic_wildcard_mentions_notify: bool | None = None,
    desktop_icon_count_display: int | None = None,
    realm_name_in_email_notifications_policy: int | None = None,
    automatically_follow_topics_policy: int | None = None,
    automatically_unmute_topics_in_muted_streams_policy: int | None = None,
    automatically_follow_topics_where_mentioned: bool | None = None,
    send_private_typing_notifications: bool | None = None,
    send_stream_typing_notifications: bool | None = None,
    send_read_receipts: bool | None = None,
    allow_private_data_export: bool | None = None,
    email_address_visibility: int | None = None,
) -> EmptyResult:
    # Every other keyword parameter is a setting; the ones not sent are None.
    account = {"full_name": full_name, "email": email, "old_password": old_password,
               "new_password": new_password}
    requested = sent_values(locals(), exclude=("caller", "account", *account))
    return update_own_settings(caller, account, requested)
