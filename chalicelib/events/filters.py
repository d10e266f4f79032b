"""Which queue gets which event, and in what form (event types, capabilities, narrow)."""
from __future__ import annotations

import copy
from typing import Any

# Settings whose changes the deprecated events carried, split as the reference split them.
DISPLAY_SETTINGS = {
    "twenty_four_hour_time", "web_channel_default_view", "starred_message_counts",
    "fluid_layout_width", "high_contrast_mode", "color_scheme", "translate_emoticons",
    "display_emoji_reaction_users", "default_language", "web_home_view",
    "web_escape_navigates_to_home_view", "left_side_userlist", "emojiset",
    "demote_inactive_streams", "user_list_style", "web_animate_image_previews",
    "web_stream_unreads_count_display_policy", "timezone", "web_font_size_px",
    "web_line_height_percent", "receives_typing_notifications", "web_suggest_update_timezone",
    "enable_drafts_synchronization", "hide_ai_features",
}
EMPTY_TOPIC_DISPLAY_DEFAULT = "general chat"


def capabilities(options: dict[str, Any]) -> dict[str, Any]:
    return options.get("client_capabilities") or {}


def wants_type(options: dict[str, Any], event_type: str) -> bool:
    types = options.get("event_types")
    if event_type == "heartbeat":
        return True
    if event_type in ("update_display_settings", "update_global_notifications"):
        event_type = "user_settings"
    return types is None or event_type in types


def _narrow_allows(options: dict[str, Any], event: dict[str, Any]) -> bool:
    """Narrowed queues get only matching message events (and every non-message event)."""
    narrow = options.get("narrow") or []
    if event["type"] != "message" or not narrow:
        return True
    message = event["message"]
    for operator, operand in narrow:
        if operator in ("stream", "channel"):
            if message.get("type") != "stream" or str(operand).lower() not in (
                    str(message.get("display_recipient", "")).lower(),
                    str(message.get("stream_id"))):
                return False
        elif operator in ("topic", "subject"):
            if message.get("subject", "").lower() != str(operand).lower():
                return False
        elif operator == "is" and operand in ("dm", "private"):
            if message.get("type") != "private":
                return False
    return True


def forms_for_queue(event: dict[str, Any], options: dict[str, Any], user_id: int,
                    user_flags: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The events (zero or more) that this queue should receive for `event`.

    Keys starting with "_" carry facts for the fan-out only and never reach clients.
    """
    return [_public(form) for form in _forms(event, options, user_id, user_flags)]


def _public(event: dict[str, Any]) -> dict[str, Any]:
    cleaned = {k: v for k, v in event.items() if not k.startswith("_")}
    if isinstance(cleaned.get("message"), dict):
        cleaned["message"] = {k: v for k, v in cleaned["message"].items()
                              if not k.startswith("_")}
    return cleaned


def _forms(event: dict[str, Any], options: dict[str, Any], user_id: int,
           user_flags: dict[str, list[str]]) -> list[dict[str, Any]]:
    kind = event["type"]
    caps = capabilities(options)
    if kind == "typing" and event.get("message_type") == "stream" and not caps.get(
            "stream_typing_notifications"):
        return []
    if kind == "user_settings" and not caps.get("user_settings_object"):
        return [e for e in _legacy_settings_events(event) if wants_type(options, e["type"])]
    if not wants_type(options, kind) or not _narrow_allows(options, event):
        return []
    if kind == "message":
        return [_message_for_queue(event, options, user_id, user_flags)]
    return [event]


def _message_for_queue(event: dict[str, Any], options: dict[str, Any], user_id: int,
                       user_flags: dict[str, list[str]]) -> dict[str, Any]:
    form = copy.deepcopy(event)
    form["flags"] = list(user_flags.get(str(user_id), []))
    message = form["message"]
    raw = message.get("_raw_content")
    if options.get("apply_markdown", True) is False and raw is not None:
        message["content"] = raw
        message["content_type"] = "text/x-markdown"
    if message.get("type") == "stream" and message.get("subject") == "" and not capabilities(
            options).get("empty_topic_name"):
        message["subject"] = form.get("_empty_topic_display_name", EMPTY_TOPIC_DISPLAY_DEFAULT)
    return form


def _legacy_settings_events(event: dict[str, Any]) -> list[dict[str, Any]]:
    setting, value = event["property"], event["value"]
    if setting in DISPLAY_SETTINGS:
        legacy = {"type": "update_display_settings", "user": event.get("_user_email", ""),
                  "setting_name": setting, "setting": value}
        if "language_name" in event:
            legacy["language_name"] = event["language_name"]
    else:
        legacy = {"type": "update_global_notifications", "user": event.get("_user_email", ""),
                  "notification_name": setting, "setting": value}
    return [legacy]
