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
    "create_multiuse_invite_group": "role:administrators",
}
