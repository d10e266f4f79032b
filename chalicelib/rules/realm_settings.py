"""Organization settings (§2.8): their defaults. Realms store only what they changed."""
from __future__ import annotations

from typing import Any

# Group-setting defaults name system groups by role; they resolve to group ids per realm.
SYSTEM_GROUP_NAMES = {
    "owners": "role:owners",
    "administrators": "role:administrators",
    "moderators": "role:moderators",
    "full_members": "role:fullmembers",
    "members": "role:members",
    "everyone": "role:everyone",
    "nobody": "role:nobody",
}

# The role at or above which a user belongs to each role-based system group.
SYSTEM_GROUP_MAX_ROLE = {
    "role:owners": 100,
    "role:administrators": 200,
    "role:moderators": 300,
    "role:fullmembers": 400,
    "role:members": 400,
    "role:everyone": 600,
    "role:nobody": 0,
}
# System groups take the first group ids of every realm, in this order.
SYSTEM_GROUPS = list(SYSTEM_GROUP_MAX_ROLE)


def system_group_id(name: str) -> int:
    return SYSTEM_GROUPS.index(name) + 1


DEFAULTS: dict[str, Any] = {
    "allow_message_editing": True,
    "message_content_edit_limit_seconds": 600,
    "message_content_delete_limit_seconds": 600,
    # "all", "moves" (only topic and channel changes) or "none": who sees edit history.
    "message_edit_history_visibility_policy": "all",
    "move_messages_within_stream_limit_seconds": 604800,
    "move_messages_between_streams_limit_seconds": 604800,
    "realm_empty_topic_display_name": "general chat",
    "realm_topics_policy": "allow_empty_topic",
    "enable_spectator_access": False,
    "wildcard_mention_large_stream_threshold": 15,
    "invite_required": True,
    "email_address_visibility": 1,
    "message_retention_days": -1,
    "enable_read_receipts": False,   # GET /messages/{id}/read_receipts answers when True
    # Where POST /messages/{id}/report posts; -1: reporting is off.
    "moderation_request_channel_id": -1,
    # Push notifications only end-to-end encrypted (level 409): this server has no E2EE
    # devices yet, so its (legacy) notifications then carry no content.
    "require_e2ee_push_notifications": False,
    # The Welcome Bot's custom message after its greeting (level 416); "": none.
    "welcome_message_custom_text": "",
    # The notification bot's messages about a channel's changes (level 434).
    "send_channel_events_messages": True,
    # The height of image and video previews in messages, in percent (level 469).
    "media_preview_size": 100,
}

GROUP_SETTING_DEFAULTS: dict[str, str] = {
    "can_resolve_topics_group": "role:everyone",
    "can_move_messages_between_channels_group": "role:members",
    "can_move_messages_between_topics_group": "role:everyone",
    "can_access_all_users_group": "role:everyone",
    "can_mention_many_users_group": "role:administrators",
    "can_create_public_channel_group": "role:members",
    "can_create_private_channel_group": "role:members",
    "can_create_web_public_channel_group": "role:owners",
    "can_invite_users_group": "role:members",
    "can_create_groups": "role:members",
    "can_manage_all_groups": "role:owners",
    "can_add_subscribers_group": "role:members",
    "can_delete_any_message_group": "role:administrators",
    "can_delete_own_message_group": "role:everyone",
    # Who may change a channel's topics_policy (level 392) and its delete-message groups
    # (level 407), besides administering the channel.
    "can_set_topics_policy_group": "role:members",
    "can_set_delete_message_policy_group": "role:moderators",
    "create_multiuse_invite_group": "role:administrators",
    # No endpoint changes these yet; each default says what the server does.
    "can_add_custom_emoji_group": "role:members",        # guests may not add emoji
    "can_create_bots_group": "role:members",             # guests may not create bots
    "can_create_write_only_bots_group": "role:members",
    "can_manage_billing_group": "role:owners",           # there is no billing here
    "can_summarize_topics_group": "role:everyone",       # no summaries (see server)
    "direct_message_initiator_group": "role:everyone",   # direct messages are open
    "direct_message_permission_group": "role:everyone",
    # Who counts as a workplace user for billing (level 477; nothing is billed here).
    "workplace_users_group": "role:members",
}

# Organization settings of the reference that nothing here changes or reads yet:
# POST /register shows their reference defaults (or, where the value describes what
# the server does, what it does), under realm_<name>.
UNCHANGEABLE_DEFAULTS: dict[str, Any] = {
    "default_language": "en",
    "digest_emails_enabled": False,          # no digest emails are sent
    "digest_weekday": 1,
    "disallow_disposable_email_addresses": False,   # not checked at signup
    "email_changes_disabled": False,
    "name_changes_disabled": False,
    "avatar_changes_disabled": False,
    "emails_restricted_to_domains": False,
    "require_unique_names": False,
    "send_welcome_emails": False,            # new users get a welcome message instead
    "message_content_allowed_in_email_notifications": True,
    "want_advertise_in_communities_directory": False,
    "inline_image_preview": True,
    "inline_url_embed_preview": False,
    "video_chat_provider": 1,                # Jitsi Meet, on the server's Jitsi URL
    "jitsi_server_url": None,
    "giphy_rating": 2,
    "waiting_period_threshold": 0,
    "default_code_block_language": "",
    "enable_guest_user_dm_warning": True,
    "enable_guest_user_indicator": True,
    "presence_disabled": False,
    "is_zephyr_mirror_realm": False,
    "push_notifications_enabled": False,     # no push notifications yet
    "push_notifications_enabled_end_timestamp": None,
    "upload_quota_mib": None,                # no quota
    "org_type": 0,                           # unspecified
    "plan_type": 1,                          # self-hosted
    # Owners cannot read private content they have no access to (level 438): exports of
    # private data need each user's consent.
    "owner_full_content_access": False,
    "new_stream_announcements_stream_id": -1,   # nothing is announced yet
    "signup_announcements_stream_id": -1,
    "service_update_announcements_stream_id": -1,
}


# Role-based direct members of each system group; each includes the next stricter one
# as its subgroup (owners ⊂ administrators ⊂ moderators ⊂ full members ⊂ members ⊂ everyone).
SYSTEM_GROUP_DIRECT_ROLES: dict[str, set[int]] = {
    "role:owners": {100}, "role:administrators": {200}, "role:moderators": {300},
    "role:fullmembers": {400}, "role:members": set(), "role:everyone": {600},
    "role:nobody": set()}
SYSTEM_GROUP_SUBGROUP: dict[str, str] = {
    "role:administrators": "role:owners", "role:moderators": "role:administrators",
    "role:fullmembers": "role:moderators", "role:members": "role:fullmembers",
    "role:everyone": "role:members"}
