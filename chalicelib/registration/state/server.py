"""POST /register's facts about the server, sent with the `realm` fetch type as in the
reference: limits, capabilities it has or lacks, and which values each group
permission setting accepts. Constant for a deployment; no reads."""
from __future__ import annotations

import time
from typing import NotRequired, TypedDict

from chalicelib import config
from chalicelib.actions.messages.reads.report import REPORT_TYPE_LABELS
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.files import MAX_UPLOAD_MIB
from chalicelib.registration.state.realm import NamedId
from chalicelib.rules.group_settings import (
    ALLOWED_SYSTEM_GROUPS,
    CHANNEL_GROUP_SETTING_DEFAULTS,
    CREATOR,
    FORBIDDEN_SYSTEM_GROUPS,
    GROUP_PERMISSION_DEFAULTS,
)
from chalicelib.rules.passwords import MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH
from chalicelib.rules.presence_rules import (
    OFFLINE_THRESHOLD_SECONDS,
    PING_INTERVAL_SECONDS,
)
from chalicelib.rules.realm_settings import GROUP_SETTING_DEFAULTS

# Identifies this server process, as the reference's SERVER_GENERATION does.
SERVER_GENERATION = int(time.time())
MAX_IMAGE_FILE_SIZE_MIB = 5
JITSI_SERVER_URL = "https://meet.jit.si"
GIPHY_RATING_OPTIONS: dict[str, NamedId] = {
    "disabled": {"name": "GIPHY integration disabled", "id": 0},
    "y": {"name": "Allow GIFs rated Y (Very young audience)", "id": 1},
    "g": {"name": "Allow GIFs rated G (General audience)", "id": 2},
    "pg": {"name": "Allow GIFs rated PG (Parental guidance)", "id": 3},
    "pg-13": {"name": "Allow GIFs rated PG-13 (Parental guidance - under 13)", "id": 4},
    "r": {"name": "Allow GIFs rated R (Restricted)", "id": 5},
}


# From level 442 one rating serves every GIF picker, and the "Y" rating is gone (G is 1).
GIF_RATING_OPTIONS: dict[str, NamedId] = {
    "disabled": {"name": "GIF pickers disabled", "id": 0},
    "g": {"name": "GIFs rated G (general audience)", "id": 1},
    "pg": {"name": "GIFs rated up to PG (parental guidance)", "id": 2},
    "pg-13": {"name": "GIFs rated up to PG-13", "id": 3},
    "r": {"name": "GIFs rated up to R (restricted)", "id": 4},
}
# No GIF picker is configured here: clients offer none (an empty key, as the reference).
TENOR_API_KEY = ""


class ThumbnailFormat(TypedDict):
    name: str
    max_width: int
    max_height: int
    format: str
    animated: bool


class ReportMessageType(TypedDict):
    """A kind of report POST /messages/{id}/report takes (report_type: the key)."""

    key: str
    name: str


class GroupPermissionSetting(TypedDict):
    """Which groups a group permission setting accepts, and its default."""

    require_system_group: bool
    allow_internet_group: bool
    allow_nobody_group: bool
    allow_everyone_group: bool
    default_group_name: str
    default_for_system_groups: str | None
    allowed_system_groups: list[str]


class SupportedPermissionSettings(TypedDict):
    realm: dict[str, GroupPermissionSetting]
    stream: dict[str, GroupPermissionSetting]
    group: dict[str, GroupPermissionSetting]


class ServerState(TypedDict, total=False):
    """Present when `realm` is among the fetch types (then every key is)."""

    server_presence_ping_interval_seconds: int
    server_presence_offline_threshold_seconds: int
    server_min_deactivated_realm_deletion_days: int | None   # realms are never deleted
    server_max_deactivated_realm_deletion_days: int | None
    server_generation: int
    server_needs_upgrade: bool
    server_inline_image_preview: bool
    server_inline_url_embed_preview: bool
    server_thumbnail_formats: list[ThumbnailFormat]
    server_avatar_changes_disabled: bool
    server_name_changes_disabled: bool
    server_web_public_streams_enabled: bool
    server_emoji_data_url: str
    server_jitsi_server_url: str | None
    jitsi_server_url: str | None      # deprecated copy of the one in use
    server_can_summarize_topics: bool
    server_supported_permission_settings: SupportedPermissionSettings
    settings_send_digest_emails: bool
    development_environment: bool
    service_plan_is_not_limited: bool
    upgrade_text_for_wide_organization_logo: str
    password_min_length: int
    password_max_length: int
    password_min_guesses: int
    max_file_upload_size_mib: int
    max_avatar_file_size_mib: int
    max_icon_file_size_mib: int
    max_logo_file_size_mib: int
    # Level 442 renamed giphy_rating_options; each is sent on its side of the level.
    giphy_rating_options: NotRequired[dict[str, NamedId]]
    gif_rating_options: NotRequired[dict[str, NamedId]]
    tenor_api_key: NotRequired[str]
    server_report_message_types: NotRequired[list[ReportMessageType]]   # level 435
    # Level 453 renamed it gif_rating_policy_options; each is sent on its side of the
    # level (the table's sends and removes).
    gif_rating_policy_options: NotRequired[dict[str, NamedId]]


# Passwords are checked by length only (no guessability estimate): the reference's 0.
NO_GUESSABILITY_CHECK = 0


def server_state(realm_jitsi_server_url: str | None) -> ServerState:
    return {
        "server_presence_ping_interval_seconds": PING_INTERVAL_SECONDS,
        "server_presence_offline_threshold_seconds": OFFLINE_THRESHOLD_SECONDS,
        "server_min_deactivated_realm_deletion_days": None,
        "server_max_deactivated_realm_deletion_days": None,
        "server_generation": SERVER_GENERATION,
        "server_needs_upgrade": False,
        # Messages render without image or link previews and uploads get no thumbnails.
        "server_inline_image_preview": False,
        "server_inline_url_embed_preview": False,
        "server_thumbnail_formats": [],
        "server_avatar_changes_disabled": False,
        "server_name_changes_disabled": False,
        "server_web_public_streams_enabled": config.web_public_streams_enabled(),
        "server_emoji_data_url": "",      # no emoji data file is served
        "server_jitsi_server_url": JITSI_SERVER_URL,
        "jitsi_server_url": realm_jitsi_server_url or JITSI_SERVER_URL,
        "server_can_summarize_topics": False,
        "server_supported_permission_settings": supported_permission_settings(),
        "settings_send_digest_emails": False,
        "development_environment": False,
        "service_plan_is_not_limited": True,
        "upgrade_text_for_wide_organization_logo": "",
        "password_min_length": MIN_PASSWORD_LENGTH,
        "password_max_length": MAX_PASSWORD_LENGTH,
        "password_min_guesses": NO_GUESSABILITY_CHECK,
        "max_file_upload_size_mib": MAX_UPLOAD_MIB,
        "max_avatar_file_size_mib": MAX_IMAGE_FILE_SIZE_MIB,
        "max_icon_file_size_mib": MAX_IMAGE_FILE_SIZE_MIB,
        "max_logo_file_size_mib": MAX_IMAGE_FILE_SIZE_MIB,
        "giphy_rating_options": GIPHY_RATING_OPTIONS,
        "gif_rating_options": GIF_RATING_OPTIONS,
        "gif_rating_policy_options": GIF_RATING_OPTIONS,
        "tenor_api_key": TENOR_API_KEY,
        "server_report_message_types": [{"key": key, "name": name}
                                        for key, name in REPORT_TYPE_LABELS.items()],
    }


def supported_permission_settings() -> SupportedPermissionSettings:
    """From the same tables the actions check group settings against."""
    return {
        "realm": {name: _setting(name, default, "realm")
                  for name, default in GROUP_SETTING_DEFAULTS.items()},
        "stream": {name: _setting(name, default, "channel")
                   for name, default in CHANNEL_GROUP_SETTING_DEFAULTS.items()},
        "group": {name: _setting(name, default, "group")
                  for name, default in GROUP_PERMISSION_DEFAULTS.items()},
    }


def _creator(scope: str) -> str:
    """The anonymous group of a channel's or group's creator (the channel's was named
    stream_creator_or_nobody below level 427)."""
    if scope == "channel" and not level_reached(427):
        return "stream_creator_or_nobody"
    return f"{scope}_creator"


def _setting(name: str, default: str, scope: str) -> GroupPermissionSetting:
    allowed = ALLOWED_SYSTEM_GROUPS.get(name)
    forbidden = FORBIDDEN_SYSTEM_GROUPS.get(name, set())

    def accepts(group: str) -> bool:
        return group not in forbidden and (allowed is None or group in allowed)

    # System groups' own settings: everyone may mention them, nobody else changes them.
    for_system_groups = None
    if scope == "group":
        for_system_groups = "role:everyone" if name == "can_mention_group" else "role:nobody"
    return {
        "require_system_group": allowed is not None,
        "allow_internet_group": False,
        "allow_nobody_group": accepts("role:nobody"),
        "allow_everyone_group": accepts("role:everyone"),
        "default_group_name": _creator(scope) if default == CREATOR else default,
        "default_for_system_groups": for_system_groups,
        "allowed_system_groups": sorted(allowed or ()),
    }
