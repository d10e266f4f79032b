"""PATCH /realm (§2.8): the organization's settings checked and changed. Here, above the
areas, because a moderation request channel is checked as a channel the administrator
can see (channels sits above realm); reading a setting is models/realms.py."""
from __future__ import annotations

from typing import Any, Literal, TypedDict, cast

from chalicelib import config
from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.groups.reads.settings import (
    check_admin_managed_membership,
    check_group_setting_change,
)
from chalicelib.actions.invitations.terms import MAX_WELCOME_TEXT_LENGTH
from chalicelib.actions.realm.description import (
    AS_UPDATE_DICT_LEVEL,
    change_description,
    check_description,
    legacy_description_event,
)
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, UNKNOWN_CHANNEL_ID, ApiError
from chalicelib.core.feature_levels import (
    REALM_SETTINGS_CAPABILITY,
    at_advertised_level,
    level_reached,
    withheld,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.delivery.types import EventBody, EventFacts
from chalicelib.models.base import transaction
from chalicelib.models.races import retry_lost_races
from chalicelib.models.realms import Realm, get_realm, realm_group_setting
from chalicelib.rules.group_settings import GroupSettingValue
from chalicelib.rules.markdown import render_markdown
from chalicelib.rules.realm_settings import DEFAULTS, GROUP_SETTING_DEFAULTS

UNLIMITED = "unlimited"
TIME_LIMIT_SETTINGS = ("message_content_edit_limit_seconds",
                       "message_content_delete_limit_seconds",
                       "move_messages_within_stream_limit_seconds",
                       "move_messages_between_streams_limit_seconds")
TOPICS_POLICIES = ("allow_empty_topic", "disable_empty_topic")
MEDIA_PREVIEW_SIZES = (100, 150, 200)   # percent of the default height


class RealmSettingChanges(TypedDict, total=False):
    """A changed organization setting (one per event, under its PATCH /realm name)."""

    description: str             # from level 464, with rendered_description
    rendered_description: str
    allow_message_editing: bool
    message_content_edit_limit_seconds: int | None   # null: unlimited
    message_content_delete_limit_seconds: int | None
    move_messages_within_stream_limit_seconds: int | None
    move_messages_between_streams_limit_seconds: int | None
    message_edit_history_visibility_policy: str
    empty_topic_display_name: str   # this server's own: see OWN_SETTINGS
    topics_policy: str   # level 392: sent only when the advertised level reaches it
    mandatory_topics: bool   # topics_policy as clients before level 392 read it
    enable_read_receipts: bool
    moderation_request_channel_id: int   # -1: message reports are off
    require_e2ee_push_notifications: bool   # level 409
    welcome_message_custom_text: str   # level 416
    send_channel_events_messages: bool   # level 434
    media_preview_size: int   # level 469
    default_avatar_source: str   # level 456: "G" or "J", for users created from now
    can_resolve_topics_group: GroupSettingValue
    can_move_messages_between_channels_group: GroupSettingValue
    can_move_messages_between_topics_group: GroupSettingValue
    can_access_all_users_group: GroupSettingValue
    can_mention_many_users_group: GroupSettingValue
    can_invite_users_group: GroupSettingValue
    create_multiuse_invite_group: GroupSettingValue
    can_add_subscribers_group: GroupSettingValue
    can_delete_any_message_group: GroupSettingValue
    can_delete_own_message_group: GroupSettingValue
    can_set_topics_policy_group: GroupSettingValue   # level 392
    can_set_delete_message_policy_group: GroupSettingValue   # level 407
    workplace_users_group: GroupSettingValue   # level 477


class RealmUpdateDictEvent(TypedDict):
    type: Literal["realm"]
    op: Literal["update_dict"]
    property: Literal["default"]
    data: RealmSettingChanges


def _check_plain(name: str, value: Any) -> Any:
    if name in TIME_LIMIT_SETTINGS:
        if value == UNLIMITED:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ApiError(f"Invalid '{name}': give a number of seconds above 0, "
                           f"or \"{UNLIMITED}\".")
        return value
    if name == "empty_topic_display_name":
        value = value.strip()
        if not value or len(value) > config.MAX_TOPIC_LENGTH:
            raise ApiError("The empty-topic display name must be 1 to "
                           f"{config.MAX_TOPIC_LENGTH} characters.")
        return value
    if name == "welcome_message_custom_text" and len(value) > MAX_WELCOME_TEXT_LENGTH:
        raise ApiError("welcome_message_custom_text is over the limit of "
                       f"{MAX_WELCOME_TEXT_LENGTH} characters.")
    if name == "topics_policy" and value not in TOPICS_POLICIES:
        raise ApiError(f"Invalid topics_policy: use one of {', '.join(TOPICS_POLICIES)}.")
    if name == "media_preview_size" and value not in MEDIA_PREVIEW_SIZES:
        raise ApiError("Invalid media_preview_size: use one of "
                       f"{', '.join(map(str, MEDIA_PREVIEW_SIZES))}.")
    return value


def do_update_realm(caller: Principal, requested: dict[str, Any]) -> EmptyResult:
    """Writes the settings that change, each conditioned on the value it was read with
    (so a `{new, old}` group change is a compare-and-set), with one update_dict event
    per changed setting as the reference sends them."""
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)
    if requested.get("moderation_request_channel_id", -1) != -1:
        check_moderation_channel(caller, requested["moderation_request_channel_id"])
    settings = dict(requested)
    description = settings.pop("description", None)
    if description is not None:
        check_description(description)

    def attempt() -> EmptyResult:
        realm = get_realm(caller.realm_id)
        changed = _changes(realm, settings)
        if changed:   # another administrator changing one of them makes this read again
            _write_changes(realm, changed)
        if description is not None:   # checked first; written after (each idempotent)
            change_description(get_realm(caller.realm_id), description,
                               _description_event(description))
        return {}

    return retry_lost_races(
        attempt, conflict="The organization's settings changed concurrently; try again.")


def _description_event(description: str) -> EventBody:
    if not level_reached(AS_UPDATE_DICT_LEVEL):
        return legacy_description_event(description)
    event: RealmUpdateDictEvent = {"type": "realm", "op": "update_dict", "property": "default",
                                   "data": {"description": description,
                                            "rendered_description": render_markdown(description)}}
    return event


def check_moderation_channel(caller: Principal, stream_id: int) -> None:
    """A channel of the organization that the administrator can see, not archived."""
    stream, _ = access_stream_by_id(caller, stream_id, require_content_access=False)
    if stream.is_archived:
        raise ApiError(UNKNOWN_CHANNEL_ID)


def _changes(realm: Realm, requested: dict[str, Any]) -> dict[str, Any]:
    """The requested settings whose validated value differs from the current one."""
    stored = realm.settings.as_dict() if realm.settings else {}
    changed: dict[str, Any] = {}
    for name, value in requested.items():
        if name in GROUP_SETTING_DEFAULTS:
            current = realm_group_setting(realm, name)
            new = check_group_setting_change(realm.realm_id, name, value, current)
            if name == "workplace_users_group" and new != current:
                check_admin_managed_membership(realm, name, new)
            if new != current:
                changed[name] = new
            continue
        value = _check_plain(name, value)
        key = STORED_NAMES.get(name, name)
        if stored.get(key, DEFAULTS.get(key)) != value:
            changed[name] = value
    return changed


def _write_changes(realm: Realm, changed: dict[str, Any]) -> None:
    stored = realm.settings.as_dict() if realm.settings else {}
    keys = {name: STORED_NAMES.get(name, name) for name in changed}
    condition = Realm.realm_id.exists()
    if "settings" in realm.attribute_values:
        # One path per setting: concurrent changes to other settings keep theirs.
        actions = [Realm.settings[keys[n]].set(v) for n, v in changed.items()]
        for key in keys.values():
            condition &= (Realm.settings[key] == stored[key] if key in stored
                          else Realm.settings[key].does_not_exist())
    else:
        actions = [Realm.settings.set({keys[n]: v for n, v in changed.items()})]
        condition &= Realm.settings.does_not_exist()
    with transaction() as tx:
        tx.update(Realm(realm.realm_id), actions=actions, condition=condition)
        for name, value in changed.items():
            data = _event_data(name, value)
            if not data:
                continue   # a setting the advertised level does not know yet
            event: RealmUpdateDictEvent = {"type": "realm", "op": "update_dict",
                                           "property": "default", "data": data}
            add_event(tx, realm.realm_id, event, to_realm(), _gated(name))


def _event_data(name: str, value: Any) -> RealmSettingChanges:
    """What the update_dict event of one changed setting says, at the advertised level:
    below level 392 the organization's topics_policy is told as the boolean
    mandatory_topics it replaced there."""
    data: dict[str, Any] = {name: value}
    if name == "topics_policy" and name in withheld("realm_setting"):
        data = {"mandatory_topics": value == "disable_empty_topic"}
    return at_advertised_level("realm_setting", cast(RealmSettingChanges, data))


# Settings of this server's own (the reference has no such update_dict property at the
# advertised level): their events go only to queues with the client capability.
OWN_SETTINGS = frozenset({"empty_topic_display_name"})


def _gated(name: str) -> EventFacts | None:
    if name not in OWN_SETTINGS:
        return None
    return {"without_capability": {"capability": REALM_SETTINGS_CAPABILITY, "event": None}}


# PATCH /realm names that are stored (and shown by POST /register) with a realm_ prefix.
STORED_NAMES = {"empty_topic_display_name": "realm_empty_topic_display_name",
                "topics_policy": "realm_topics_policy"}
