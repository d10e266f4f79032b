"""The initial state POST /register returns for each requested event type."""
from __future__ import annotations

import functools
from typing import Any

from chalicelib.actions.channel_folders import channel_folders_state
from chalicelib.actions.channel_permissions import realm_default_stream_ids
from chalicelib.actions.conversations import recent_private_conversations_state
from chalicelib.actions.drafts import drafts_state
from chalicelib.actions.playgrounds import realm_playgrounds_state
from chalicelib.actions.profile_fields import profile_fields_state
from chalicelib.actions.realm_emoji import realm_emoji_state
from chalicelib.actions.realms import get_realm
from chalicelib.actions.saved_snippets import saved_snippets_state
from chalicelib.actions.subscriptions import subscription_state
from chalicelib.actions.unread import starred_messages_state, unread_msgs_state
from chalicelib.actions.user_access import viewer_access
from chalicelib.actions.user_groups import user_groups_state
from chalicelib.actions.user_status import user_status_state
from chalicelib.actions.user_topics import (
    empty_topic_display_name,
    muted_topic_triples,
    user_topic_dict,
    user_topics,
)
from chalicelib.actions.users import list_realm_users, realm_user_dicts
from chalicelib.events.filters import (
    LEGACY_DISPLAY_SETTINGS,
    LEGACY_NOTIFICATION_SETTINGS,
)
from chalicelib.http.auth import Principal
from chalicelib.lib.markdown import render_markdown
from chalicelib.lib.realm_settings import DEFAULTS as REALM_DEFAULTS
from chalicelib.lib.realm_settings import GROUP_SETTING_DEFAULTS, system_group_id
from chalicelib.lib.setting_choices import EMOJISET_CHOICES, NOTIFICATION_SOUNDS
from chalicelib.lib.user_settings import own_settings
from chalicelib.models.realms import Counter, Realm
from chalicelib.models.users import User


def _wants(types: list[str] | None, name: str) -> bool:
    return types is None or name in types


def fetch_initial_state(caller: Principal, me: User, types: list[str] | None,
                        capabilities: dict[str, Any], include_subscribers: bool
                        ) -> dict[str, Any]:
    state: dict[str, Any] = {}
    realm = functools.cache(lambda: get_realm(caller.realm_id))   # read once, if needed
    access = functools.cache(lambda: viewer_access(caller, realm))   # reads only for guests
    if _wants(types, "realm_user"):
        users = realm_user_dicts(list_realm_users(caller.realm_id), access(),
                                 omit_inaccessible=bool(capabilities.get("user_list_incomplete")))
        # "Unknown user" placeholders are active: the reference lists them in realm_users.
        state["realm_users"] = [u for u in users if u["is_active"]]
        state["realm_non_active_users"] = [u for u in users if not u["is_active"]]
    state.update(_settings_state(me, types, capabilities))
    if _wants(types, "alert_words"):
        state["alert_words"] = list(getattr(me, "alert_words", None) or [])
    if _wants(types, "custom_profile_fields"):
        state.update(profile_fields_state(caller.realm_id))
    if _wants(types, "realm"):
        state.update(realm_state(realm()))
    if _wants(types, "message"):
        counter = Counter.get_or_none(f"realm:{caller.realm_id}")
        state["max_message_id"] = int(counter.message or -1) if counter else -1
    if _wants(types, "message") and _wants(types, "update_message_flags"):
        display = (None if capabilities.get("empty_topic_name")
                   else empty_topic_display_name(realm()))
        state["unread_msgs"] = unread_msgs_state(caller.realm_id, caller.user_id, display)
    if _wants(types, "starred_messages"):
        state["starred_messages"] = starred_messages_state(caller.realm_id, caller.user_id)
    if _wants(types, "recent_private_conversations"):
        state["recent_private_conversations"] = recent_private_conversations_state(
            caller.realm_id, caller.user_id)
    if _wants(types, "user_status"):
        state["user_status"] = user_status_state(caller.realm_id, access())
    if _wants(types, "realm_emoji"):
        state["realm_emoji"] = realm_emoji_state(caller.realm_id)
    if _wants(types, "drafts"):
        state["drafts"] = drafts_state(caller.realm_id, caller.user_id)
    if _wants(types, "saved_snippets"):
        state["saved_snippets"] = saved_snippets_state(caller.realm_id, caller.user_id)
    if _wants(types, "realm_playgrounds"):
        state["realm_playgrounds"] = realm_playgrounds_state(caller.realm_id)
    # The event type is channel_folder; the state key's name is accepted as well.
    if _wants(types, "channel_folder") or "channel_folders" in (types or ()):
        state["channel_folders"] = channel_folders_state(caller.realm_id)
    if _wants(types, "default_streams"):
        state["realm_default_streams"] = sorted(realm_default_stream_ids(realm()))
    if _wants(types, "realm_user_groups"):
        state["realm_user_groups"] = user_groups_state(
            caller.realm_id, bool(capabilities.get("include_deactivated_groups")))
    if _wants(types, "subscription"):
        state.update(subscription_state(caller, include_subscribers))
    # As the reference: clients that name user_topic get no legacy muted_topics.
    legacy_muted = _wants(types, "muted_topics") and (types is None or "user_topic" not in types)
    if _wants(types, "user_topic") or legacy_muted:
        items = user_topics(caller.realm_id, caller.user_id)
        if _wants(types, "user_topic"):
            display = (None if capabilities.get("empty_topic_name")
                       else empty_topic_display_name(realm()))
            state["user_topics"] = [user_topic_dict(i, display) for i in items]
        if legacy_muted:
            state["muted_topics"] = muted_topic_triples(realm(), items)
    return state


def _settings_state(me: User, types: list[str] | None, capabilities: dict[str, Any]
                    ) -> dict[str, Any]:
    """The user_settings object, and the legacy top-level fields for old clients."""
    settings = own_settings(me.stored_settings(), me.timezone)
    state: dict[str, Any] = {}
    if not capabilities.get("user_settings_object"):
        if _wants(types, "update_display_settings"):
            state.update({k: settings[k] for k in sorted(LEGACY_DISPLAY_SETTINGS)})
            state["emojiset_choices"] = EMOJISET_CHOICES
        if _wants(types, "update_global_notifications"):
            state.update({k: settings[k] for k in sorted(LEGACY_NOTIFICATION_SETTINGS)})
            state["available_notification_sounds"] = NOTIFICATION_SOUNDS
    if _wants(types, "user_settings"):
        state["user_settings"] = {**settings, "emojiset_choices": EMOJISET_CHOICES,
                                  "available_notification_sounds": NOTIFICATION_SOUNDS}
    return state


def realm_state(realm: Realm) -> dict[str, Any]:
    stored = realm.settings.as_dict() if realm.settings else {}
    settings = {**REALM_DEFAULTS, **stored}
    state = {name if name.startswith("realm_") else f"realm_{name}": value
             for name, value in settings.items()}
    for name, default_group in GROUP_SETTING_DEFAULTS.items():
        state[f"realm_{name}"] = stored.get(name, system_group_id(default_group))
    state.update({
        "realm_name": realm.name,
        "realm_description": render_markdown(realm.description),
        "realm_date_created": realm.date_created,
    })
    return state
