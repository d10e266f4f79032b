"""PATCH /realm/user_settings_defaults: the settings new users of the organization start with."""
from __future__ import annotations

from chalicelib.actions.realm.user_defaults import do_update_user_settings_defaults
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import sent_values

bp = ApiBlueprint(__name__)


@bp.endpoint("/realm/user_settings_defaults", "PATCH")
def update_realm_user_settings_defaults(
    caller: Principal, *,
    automatically_follow_topics_policy: int | None = None,
    automatically_follow_topics_where_mentioned: bool | None = None,
    automatically_unmute_topics_in_muted_streams_policy: int | None = None,
    color_scheme: int | None = None,
    demote_inactive_streams: int | None = None,
    desktop_icon_count_display: int | None = None,
    display_emoji_reaction_users: bool | None = None,
    email_address_visibility: int | None = None,
    email_notifications_batching_period_seconds: int | None = None,
    emojiset: str | None = None,
    enable_desktop_notifications: bool | None = None,
    enable_digest_emails: bool | None = None,
    enable_drafts_synchronization: bool | None = None,
    enable_followed_topic_audible_notifications: bool | None = None,
    enable_followed_topic_desktop_notifications: bool | None = None,
    enable_followed_topic_email_notifications: bool | None = None,
    enable_followed_topic_push_notifications: bool | None = None,
    enable_followed_topic_wildcard_mentions_notify: bool | None = None,
    enable_offline_email_notifications: bool | None = None,
    enable_offline_push_notifications: bool | None = None,
    enable_online_push_notifications: bool | None = None,
    enable_sounds: bool | None = None,
    enable_stream_audible_notifications: bool | None = None,
    enable_stream_desktop_notifications: bool | None = None,
    enable_stream_email_notifications: bool | None = None,
    enable_stream_push_notifications: bool | None = None,
    enter_sends: bool | None = None,
    fluid_layout_width: bool | None = None,
    hide_ai_features: bool | None = None,
    high_contrast_mode: bool | None = None,
    left_side_userlist: bool | None = None,
    message_content_in_email_notifications: bool | None = None,
    notification_sound: str | None = None,
    pm_content_in_desktop_notifications: bool | None = None,
    presence_enabled: bool | None = None,
    realm_name_in_email_notifications_policy: int | None = None,
    receives_typing_notifications: bool | None = None,
    send_private_typing_notifications: bool | None = None,
    send_read_receipts: bool | None = None,
    send_stream_typing_notifications: bool | None = None,
    starred_message_counts: bool | None = None,
    translate_emoticons: bool | None = None,
    twenty_four_hour_time: bool | None = None,
    user_list_style: int | None = None,
    web_animate_image_previews: str | None = None,
    web_channel_default_view: int | None = None,
    web_escape_navigates_to_home_view: bool | None = None,
    web_font_size_px: int | None = None,
    web_home_view: str | None = None,
    web_line_height_percent: int | None = None,
    web_mark_read_on_scroll_policy: int | None = None,
    web_navigate_to_sent_message: bool | None = None,
    web_stream_unreads_count_display_policy: int | None = None,
    web_suggest_update_timezone: bool | None = None,
    wildcard_mentions_notify: bool | None = None,
) -> EmptyResult:
    # Every keyword parameter is a setting; the ones not sent are None.
    return do_update_user_settings_defaults(caller, sent_values(locals()))
