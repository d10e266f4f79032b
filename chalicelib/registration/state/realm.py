"""POST /register's organization (`realm`): its name, addresses and every setting the
reference lists, stored values over their defaults (rules/realm_settings.py)."""
from __future__ import annotations

from typing import Any, TypedDict, cast

from chalicelib import config
from chalicelib.actions.realm.reads.server_settings import SIGN_IN_WITH_PASSWORD
from chalicelib.actions.users.reads.profile_fields import DEFAULT_EXTERNAL_ACCOUNTS
from chalicelib.core.feature_levels import level_reached
from chalicelib.models.realms import Realm, realm_group_setting, realm_uuid
from chalicelib.registration.state.context import StateContext
from chalicelib.rules.avatars import gravatar_url
from chalicelib.rules.group_settings import GroupSettingValue
from chalicelib.rules.markdown import render_markdown
from chalicelib.rules.realm_settings import (
    DEFAULTS,
    GROUP_SETTING_DEFAULTS,
    SYSTEM_GROUPS,
    UNCHANGEABLE_DEFAULTS,
)

# The reference's numbers for the deprecated policy forms of four group settings, by
# system group; a value these cannot express shows as the policy of the default group.
_COMMON_POLICY = {"role:members": 1, "role:administrators": 2, "role:fullmembers": 3,
                  "role:moderators": 4}
_WEB_PUBLIC_POLICY = {"role:administrators": 2, "role:moderators": 4, "role:nobody": 6,
                      "role:owners": 7}
_WILDCARD_POLICY = {"role:everyone": 1, "role:members": 2, "role:fullmembers": 3,
                    "role:administrators": 5, "role:nobody": 6, "role:moderators": 7}
DEPRECATED_POLICIES = {
    "create_public_stream_policy": ("can_create_public_channel_group", _COMMON_POLICY),
    "create_private_stream_policy": ("can_create_private_channel_group", _COMMON_POLICY),
    "create_web_public_stream_policy": ("can_create_web_public_channel_group",
                                        _WEB_PUBLIC_POLICY),
    "wildcard_mention_policy": ("can_mention_many_users_group", _WILDCARD_POLICY),
}
ICON_FROM_GRAVATAR = "G"
# The rating GIF pickers would use (none is configured): G, which is 2 among the GIPHY
# options and 1 among the GIF options of level 442 (registration/state/server.py).
GIPHY_RATING_G, GIF_RATING_G = 2, 1
REALM_UUID_LEVEL = 466
LOGO_DEFAULT = "D"


class NamedId(TypedDict):
    name: str
    id: int


class AuthenticationMethod(TypedDict):
    enabled: bool
    available: bool


class ExternalAccount(TypedDict):
    name: str
    text: str
    hint: str
    url_pattern: str


VIDEO_CHAT_PROVIDERS: dict[str, NamedId] = {"disabled": {"name": "None", "id": 0},
                                            "jitsi_meet": {"name": "Jitsi Meet", "id": 1}}


class RealmState(TypedDict, total=False):
    """Present when `realm` is among the fetch types (then every key is)."""

    realm_name: str
    realm_description: str          # HTML
    realm_date_created: int
    realm_uuid: str                 # level 466
    realm_url: str
    realm_uri: str                  # deprecated copy of realm_url
    realm_bot_domain: str
    realm_icon_url: str
    realm_icon_source: str
    realm_logo_url: str             # no logos yet: empty
    realm_logo_source: str
    realm_night_logo_url: str
    realm_night_logo_source: str
    realm_authentication_methods: dict[str, AuthenticationMethod]
    realm_email_auth_enabled: bool
    realm_password_auth_enabled: bool
    realm_available_video_chat_providers: dict[str, NamedId]
    realm_default_external_accounts: dict[str, ExternalAccount]
    # Settings PATCH /realm changes (rules/realm_settings.DEFAULTS).
    realm_allow_message_editing: bool
    realm_message_content_edit_limit_seconds: int | None
    realm_move_messages_within_stream_limit_seconds: int | None
    realm_move_messages_between_streams_limit_seconds: int | None
    realm_empty_topic_display_name: str
    realm_topics_policy: str
    realm_enable_spectator_access: bool
    realm_invite_required: bool
    realm_message_retention_days: int
    realm_message_content_delete_limit_seconds: int | None
    realm_message_edit_history_visibility_policy: str
    realm_require_e2ee_push_notifications: bool   # level 409
    realm_welcome_message_custom_text: str        # level 416
    realm_send_channel_events_messages: bool      # level 434
    realm_media_preview_size: int   # level 469
    realm_default_avatar_source: str   # level 456: "G" or "J"
    # Settings nothing changes yet (rules/realm_settings.UNCHANGEABLE_DEFAULTS).
    realm_default_language: str
    realm_digest_emails_enabled: bool
    realm_digest_weekday: int
    realm_disallow_disposable_email_addresses: bool
    realm_email_changes_disabled: bool
    realm_name_changes_disabled: bool
    realm_avatar_changes_disabled: bool
    realm_emails_restricted_to_domains: bool
    realm_require_unique_names: bool
    realm_send_welcome_emails: bool
    realm_message_content_allowed_in_email_notifications: bool
    realm_want_advertise_in_communities_directory: bool
    realm_inline_image_preview: bool
    realm_inline_url_embed_preview: bool
    realm_video_chat_provider: int
    realm_jitsi_server_url: str | None
    realm_giphy_rating: int
    realm_gif_rating_policy: int   # its name from level 453
    realm_waiting_period_threshold: int
    realm_default_code_block_language: str
    realm_enable_read_receipts: bool
    realm_enable_guest_user_dm_warning: bool
    realm_enable_guest_user_indicator: bool
    realm_presence_disabled: bool
    realm_is_zephyr_mirror_realm: bool
    realm_push_notifications_enabled: bool
    realm_push_notifications_enabled_end_timestamp: int | None
    realm_upload_quota_mib: int | None
    realm_org_type: int
    realm_plan_type: int
    realm_owner_full_content_access: bool   # level 438
    realm_moderation_request_channel_id: int
    realm_new_stream_announcements_stream_id: int
    realm_signup_announcements_stream_id: int
    realm_service_update_announcements_stream_id: int
    # Deprecated forms the reference still sends, derived from the current settings.
    realm_allow_edit_history: bool
    realm_mandatory_topics: bool
    realm_create_public_stream_policy: int
    realm_create_private_stream_policy: int
    realm_create_web_public_stream_policy: int
    realm_wildcard_mention_policy: int
    # Group settings (rules/realm_settings.GROUP_SETTING_DEFAULTS).
    realm_can_resolve_topics_group: GroupSettingValue
    realm_can_move_messages_between_channels_group: GroupSettingValue
    realm_can_move_messages_between_topics_group: GroupSettingValue
    realm_can_access_all_users_group: GroupSettingValue
    realm_can_mention_many_users_group: GroupSettingValue
    realm_can_create_public_channel_group: GroupSettingValue
    realm_can_create_private_channel_group: GroupSettingValue
    realm_can_create_web_public_channel_group: GroupSettingValue
    realm_can_invite_users_group: GroupSettingValue
    realm_can_create_groups: GroupSettingValue
    realm_can_manage_all_groups: GroupSettingValue
    realm_can_add_subscribers_group: GroupSettingValue
    realm_can_delete_any_message_group: GroupSettingValue
    realm_can_delete_own_message_group: GroupSettingValue
    realm_create_multiuse_invite_group: GroupSettingValue
    realm_can_add_custom_emoji_group: GroupSettingValue
    realm_can_create_bots_group: GroupSettingValue
    realm_can_create_write_only_bots_group: GroupSettingValue
    realm_can_set_topics_policy_group: GroupSettingValue
    realm_can_set_delete_message_policy_group: GroupSettingValue
    realm_can_manage_billing_group: GroupSettingValue
    realm_can_summarize_topics_group: GroupSettingValue
    realm_direct_message_initiator_group: GroupSettingValue
    realm_direct_message_permission_group: GroupSettingValue
    realm_workplace_users_group: GroupSettingValue   # level 477


# Kept by this server but not shown: the reference removed the realm's
# email_address_visibility at feature level 163 (a user setting now), and has no
# wildcard_mention_large_stream_threshold in its registration state.
NOT_SHOWN = frozenset({"email_address_visibility", "wildcard_mention_large_stream_threshold"})


def _api_name(name: str) -> str:
    return name if name.startswith("realm_") else f"realm_{name}"


def realm_state(ctx: StateContext) -> RealmState:
    """One read: the realm's item (shared with the other builders)."""
    return realm_settings_state(ctx.realm)


def realm_settings_state(realm: Realm) -> RealmState:
    stored = realm.settings.as_dict() if realm.settings else {}
    state: dict[str, Any] = {_api_name(name): value for name, value in
                             {**UNCHANGEABLE_DEFAULTS, **DEFAULTS, **stored}.items()
                             if name not in GROUP_SETTING_DEFAULTS and name not in NOT_SHOWN}
    groups = {name: realm_group_setting(realm, name) for name in GROUP_SETTING_DEFAULTS}
    state.update({_api_name(name): value for name, value in groups.items()})
    for name, (setting, policies) in DEPRECATED_POLICIES.items():
        state[f"realm_{name}"] = _policy(groups[setting], policies,
                                         GROUP_SETTING_DEFAULTS[setting])
    url = config.realm_url(realm.subdomain)
    state.update({
        "realm_name": realm.name,
        "realm_description": render_markdown(realm.description),
        "realm_date_created": int(realm.date_created),
        "realm_url": url,
        "realm_uri": url,
        "realm_bot_domain": url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0],
        "realm_icon_url": gravatar_url(realm.subdomain, 1),
        "realm_icon_source": ICON_FROM_GRAVATAR,
        "realm_logo_url": "",
        "realm_logo_source": LOGO_DEFAULT,
        "realm_night_logo_url": "",
        "realm_night_logo_source": LOGO_DEFAULT,
        # Email address and password (POST /fetch_api_key) is the one way to sign in.
        "realm_authentication_methods": {"Email": {"enabled": True, "available": True}},
        "realm_email_auth_enabled": True,
        "realm_password_auth_enabled": SIGN_IN_WITH_PASSWORD,
        "realm_available_video_chat_providers": VIDEO_CHAT_PROVIDERS,
        "realm_default_external_accounts": {
            key: {"name": account["name"], "text": account["name"],
                  "hint": account["hint"], "url_pattern": account["url_pattern"]}
            for key, account in DEFAULT_EXTERNAL_ACCOUNTS.items()},
        "realm_allow_edit_history":
            state["realm_message_edit_history_visibility_policy"] != "none",
        "realm_mandatory_topics": state["realm_topics_policy"] == "disable_empty_topic",
        # G, in the numbering of the advertised level (level 442 dropped the Y rating).
        "realm_giphy_rating": GIF_RATING_G if level_reached(442) else GIPHY_RATING_G,
        # Level 453's name for it (the table sends one name on each side of the level).
        "realm_gif_rating_policy": GIF_RATING_G,
    })
    if level_reached(REALM_UUID_LEVEL):   # (an older organization's is made on first use)
        state["realm_uuid"] = realm_uuid(realm)
    return cast(RealmState, state)   # its keys are built from the settings tables


def _policy(value: GroupSettingValue, policies: dict[str, int], default: str) -> int:
    if isinstance(value, int) and 1 <= value <= len(SYSTEM_GROUPS):
        policy = policies.get(SYSTEM_GROUPS[value - 1])
        if policy is not None:
            return policy
    return policies[default]
