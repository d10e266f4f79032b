"""PATCH /settings for personal settings (§4.2): validate, write what changed, tell clients."""
from __future__ import annotations

from typing import Any
from zoneinfo import available_timezones

from chalicelib.events.initial_state import own_settings
from chalicelib.events.outbox import add_event
from chalicelib.events.queues import set_receives_typing_notifications
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError
from chalicelib.lib.setting_choices import LANGUAGES, NOTIFICATION_SOUNDS, language_name
from chalicelib.models.base import transaction
from chalicelib.models.users import User

INT_CHOICES: dict[str, set[int]] = {
    "web_channel_default_view": {1, 2, 3, 4},
    "color_scheme": {1, 2, 3},
    "demote_inactive_streams": {1, 2, 3},
    "user_list_style": {1, 2, 3},
    "web_stream_unreads_count_display_policy": {1, 2, 3},
}
STR_CHOICES: dict[str, set[str]] = {
    "web_home_view": {"recent_topics", "inbox", "all_messages"},
    "emojiset": {"google", "twitter", "text"},
    "web_animate_image_previews": {"always", "on_hover", "never"},
}
INT_RANGES: dict[str, tuple[int, int]] = {"web_font_size_px": (12, 24),
                                          "web_line_height_percent": (100, 200)}
MAX_EMAIL_BATCHING_SECONDS = 7 * 24 * 3600


def check_setting(name: str, value: Any) -> None:
    """Raises for a value outside the setting's allowed values (types are checked earlier)."""
    if name in INT_CHOICES and value not in INT_CHOICES[name]:
        raise ApiError(f"Invalid {name}")
    if name in STR_CHOICES and value not in STR_CHOICES[name]:
        raise ApiError(f"Invalid {name}")
    if name in INT_RANGES and not INT_RANGES[name][0] <= value <= INT_RANGES[name][1]:
        low, high = INT_RANGES[name]
        raise ApiError(f"Invalid {name}: use a value from {low} to {high}")
    if name == "email_notifications_batching_period_seconds" and not (
            0 < value <= MAX_EMAIL_BATCHING_SECONDS):
        raise ApiError(f"Invalid email batching period: {value} seconds")
    if name == "default_language" and value not in LANGUAGES:
        raise ApiError("Invalid default_language")
    if name == "notification_sound" and value not in NOTIFICATION_SOUNDS:
        raise ApiError(f"Invalid notification sound '{value}'")
    if name == "timezone" and value != "" and value not in _timezones():
        raise ApiError("Not a recognized time zone")


_TIMEZONES: set[str] = set()


def _timezones() -> set[str]:
    if not _TIMEZONES:   # reading the zone database takes a while: once per process
        _TIMEZONES.update(available_timezones())
    return _TIMEZONES


def do_update_settings(caller: Principal, requested: dict[str, Any]) -> dict[str, Any]:
    """Writes the settings that differ from the stored ones, one event per change."""
    for name, value in requested.items():
        check_setting(name, value)
    user = User.get(caller.realm_id, caller.user_id)
    current = own_settings(user)
    changed = {name: value for name, value in requested.items() if current.get(name) != value}
    if not changed:
        return {}
    if "settings" in user.attribute_values:
        # One path per setting: concurrent requests changing other settings keep theirs.
        actions = [User.settings[name].set(value) for name, value in changed.items()]
    else:
        stored = user.settings.as_dict() if user.settings else {}
        actions = [User.settings.set({**stored, **changed})]
    if "timezone" in changed:
        actions.append(User.timezone.set(changed["timezone"]))
    with transaction() as tx:
        tx.update(User(caller.realm_id, caller.user_id), actions=actions,
                  condition=User.user_id.exists())
        for name, value in changed.items():
            add_event(tx, caller.realm_id, _settings_event(caller, name, value),
                      {"users": [caller.user_id]})
        if "timezone" in changed:
            add_event(tx, caller.realm_id, {"type": "realm_user", "op": "update", "person": {
                "user_id": caller.user_id, "email": caller.email,
                "timezone": changed["timezone"]}}, {"realm": True})
    if "receives_typing_notifications" in changed:
        set_receives_typing_notifications(caller.realm_id, caller.user_id,
                                          changed["receives_typing_notifications"])
    return {}


def _settings_event(caller: Principal, name: str, value: Any) -> dict[str, Any]:
    event = {"type": "user_settings", "op": "update", "property": name, "value": value,
             # For the deprecated forms the fan-out derives for old clients.
             "_user_email": caller.email}
    if name == "default_language":
        event["language_name"] = language_name(value)
    return event


def update_own_settings(caller: Principal, account: dict[str, str | None],
                        requested: dict[str, Any]) -> dict[str, Any]:
    """PATCH /settings: validates everything first, then the account changes and settings."""
    from chalicelib.actions.account import do_update_account

    for name, value in requested.items():
        check_setting(name, value)
    do_update_account(caller, **account)
    result = do_update_settings(caller, requested)
    if requested.get("enable_drafts_synchronization") is False:
        from chalicelib.actions.drafts import delete_all_drafts

        delete_all_drafts(caller.realm_id, caller.user_id)
    return result
