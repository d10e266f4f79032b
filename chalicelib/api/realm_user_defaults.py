"""PATCH /realm/user_settings_defaults: the settings new users of the organization start with."""
from __future__ import annotations

from typing import Annotated, Any, TypedDict

from chalicelib.actions.realm.user_defaults import do_update_user_settings_defaults
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import changes_of

bp = ApiBlueprint(__name__)


class UserSettingsDefaultsPatch(TypedDict, total=False):
    """The defaults PATCH /realm/user_settings_defaults changes: each an optional parameter."""

    automatically_follow_topics_policy: int
    automatically_follow_topics_where_mentioned: bool
    automatically_unmute_topics_in_muted_streams_policy: int
    color_scheme: int
    demote_inactive_streams: int
    desktop_icon_count_display: int
    display_emoji_reaction_users: bool
    email_address_visibility: int
    email_notifications_batching_period_seconds: int
    emojiset: str
    enable_desktop_notifications: bool
    enable_digest_emails: bool
    enable_drafts_synchronization: bool
    enable_followed_topic_audible_notifications: bool
    enable_followed_topic_desktop_notifications: bool
    enable_followed_topic_email_notifications: bool
    enable_followed_topic_push_notifications: bool
    enable_followed_topic_wildcard_mentions_notify: bool
    enable_offline_email_notifications: bool
    enable_offline_push_notifications: bool
    enable_online_push_notifications: bool
    enable_sounds: bool
    enable_stream_audible_notifications: bool
    enable_stream_desktop_notifications: bool
    enable_stream_email_notifications: bool
    enable_stream_push_notifications: bool
    enter_sends: bool
    fluid_layout_width: bool
    hide_ai_features: bool
    high_contrast_mode: bool
    left_side_userlist: bool
    message_content_in_email_notifications: bool
    notification_sound: str
    pm_content_in_desktop_notifications: bool
    presence_enabled: bool
    realm_name_in_email_notifications_policy: int
    receives_typing_notifications: bool
    send_private_typing_notifications: bool
    send_read_receipts: bool
    send_stream_typing_notifications: bool
    starred_message_counts: bool
    translate_emoticons: bool
    twenty_four_hour_time: bool
    user_list_style: int
    web_animate_image_previews: str
    web_channel_default_view: int
    web_escape_navigates_to_home_view: bool
    web_font_size_px: int
    web_home_view: str
    web_line_height_percent: int
    web_mark_read_on_scroll_policy: int
    web_navigate_to_sent_message: bool
    web_stream_unreads_count_display_policy: int
    web_suggest_update_timezone: bool
    wildcard_mentions_notify: bool


@bp.endpoint("/realm/user_settings_defaults", "PATCH")
def update_realm_user_settings_defaults(
    caller: Principal, *,
    settings: Annotated[dict[str, Any], changes_of(UserSettingsDefaultsPatch)],
) -> EmptyResult:
    return do_update_user_settings_defaults(caller, settings)
