"""Which queue gets which event, and in what form (event types, capabilities, narrow)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

from chalicelib.core.feature_levels import level_reached
from chalicelib.delivery.types import EventFacts
from chalicelib.models.events import EventQueue
from chalicelib.rules.user_settings import LEGACY_DISPLAY_SETTINGS, LEGACY_NOTIFICATION_SETTINGS

if TYPE_CHECKING:
    from chalicelib.narrow.evaluate import ReaderContext

EMPTY_TOPIC_DISPLAY_DEFAULT = "general chat"
TYPING_TYPES = ("typing", "typing_edit_message")


class UpdateDisplaySettingsEvent(TypedDict):
    """Deprecated form of a display setting's user_settings event, for old clients."""

    type: Literal["update_display_settings"]
    user: str
    setting_name: str
    setting: bool | int | str
    language_name: NotRequired[str]


class UpdateGlobalNotificationsEvent(TypedDict):
    """Deprecated form of a notification setting's user_settings event, for old clients."""

    type: Literal["update_global_notifications"]
    user: str
    notification_name: str
    setting: bool | int | str


def capabilities(options: dict[str, Any]) -> dict[str, Any]:
    return options.get("client_capabilities") or {}


def wants_type(options: dict[str, Any], event_type: str) -> bool:
    types = options.get("event_types")
    return event_type == "heartbeat" or types is None or event_type in types


# The owner's topic and channel settings by (realm_id, user_id), for is:muted.
SettingsReader = Callable[[int, int], "ReaderContext"]


def stored_reader_settings(realm_id: int, user_id: int) -> ReaderContext:
    """The queue owner's settings as stored (two Queries)."""
    from chalicelib.narrow.reader import reader_context
    return reader_context(realm_id, user_id)


def _narrow_allows(queue: EventQueue, event: dict[str, Any], facts: EventFacts,
                   user_flags: dict[str, list[str]], settings: SettingsReader) -> bool:
    """Narrowed queues get only matching message events (and every non-message event)."""
    narrow = (queue.options or {}).get("narrow") or []
    if event["type"] != "message" or not narrow:
        return True
    # Loaded here: few queues are narrowed, and the narrow language (its parser,
    # evaluator and search) is a sixth of the fan-out function's cold import.
    from chalicelib.narrow.events import event_matches
    from chalicelib.narrow.facts import SendFacts
    user_id = queue.user_id
    sent = SendFacts(facts.get("raw_content", ""), facts.get("channel_public"),
                     facts.get("channel_web_public"))
    return event_matches(narrow, user_id, event["message"], user_flags.get(str(user_id), []),
                         lambda: settings(int(queue.realm_id), user_id), sent)


def forms_for_queue(event: dict[str, Any], facts: EventFacts, queue: EventQueue,
                    user_flags: dict[str, list[str]],
                    settings: SettingsReader = stored_reader_settings) -> list[dict[str, Any]]:
    """The events (zero or more) that this queue should receive for `event`.

    `facts` are the record's, beside the event (never part of a form): e.g.
    `without_capability` names the form queues without that client capability get
    instead. `settings` reads a queue owner's topic and channel settings for a narrow
    with is:muted (the fan-out caches it per batch).
    """
    kind = event["type"]
    options = queue.options or {}
    caps = capabilities(options)
    if kind == "user_settings":
        forms = [event] if wants_type(options, kind) else []
        # The deprecated forms, for clients without the capability, until level 439
        # stopped sending them to anyone.
        if not caps.get("user_settings_object") and not level_reached(439):
            forms += [e for e in _legacy_settings_events(event, facts)
                      if wants_type(options, e["type"])]
        return forms
    fallback = facts.get("without_capability")
    if fallback is not None and not caps.get(fallback["capability"]):
        # Clients without the capability get the older form (e.g. archived_channels),
        # or nothing when there is none (linkifiers).
        if fallback["event"] is None:
            return []
        event, kind = dict(fallback["event"]), fallback["event"]["type"]
    if not wants_type(options, kind) or not _narrow_allows(queue, event, facts, user_flags,
                                                              settings):
        return []
    if "persons_by_receiver" in facts:
        return _persons_for_queue(event, facts, int(queue.user_id))
    if kind in TYPING_TYPES:
        return _typing_for_queue(event, facts, queue, caps)
    if kind == "message":
        return [_message_for_queue(event, facts, options, queue.user_id, user_flags)]
    if kind == "update_message":
        return [_update_for_queue(event, facts, caps, queue.user_id, user_flags)]
    if kind == "delete_message":
        return _delete_for_queue(event, facts, caps)
    if kind == "muted_topics" and "user_topic" in (options.get("event_types") or []):
        return []   # the deprecated form only for clients that do not know user_topic
    if kind == "user_topic" and event.get("topic_name") == "" and not caps.get(
            "empty_topic_name"):
        return [{**event, "topic_name": _empty_topic_display(facts)}]
    return [event]


def _persons_for_queue(event: dict[str, Any], facts: EventFacts, user_id: int
                       ) -> list[dict[str, Any]]:
    """One event per person this queue's owner is given (the persons_by_receiver fact)."""
    fact = facts["persons_by_receiver"]
    persons = fact["persons"]
    return [{"type": event["type"], "op": event["op"], "person": persons[str(int(i))]}
            for i in fact["receivers"].get(str(user_id), ())]


def _update_for_queue(event: dict[str, Any], facts: EventFacts, caps: dict[str, Any],
                      user_id: int, user_flags: dict[str, list[str]]) -> dict[str, Any]:
    form = {**event, "flags": list(user_flags.get(str(user_id), event.get("flags", [])))}
    if not caps.get("empty_topic_name"):
        for name in ("orig_subject", "subject"):
            if form.get(name) == "":
                form[name] = _empty_topic_display(facts)
    return form


class DeleteMessageLegacyEvent(TypedDict):
    """delete_message as clients without bulk_message_deletion get it: one per message
    (the bulk form is DeleteMessageEvent in actions/messages/delete.py)."""

    type: Literal["delete_message"]
    message_id: int
    message_type: Literal["stream", "private"]
    stream_id: NotRequired[int]
    topic: NotRequired[str]


def _delete_for_queue(event: dict[str, Any], facts: EventFacts, caps: dict[str, Any]
                      ) -> list[dict[str, Any]]:
    """One event for clients with bulk_message_deletion, one per message for the others."""
    form = dict(event)
    if form.get("topic") == "" and not caps.get("empty_topic_name"):
        form["topic"] = _empty_topic_display(facts)
    if caps.get("bulk_message_deletion"):
        return [form]
    message_ids = form.pop("message_ids", [])
    return [{**form, "message_id": message_id} for message_id in message_ids]


def _typing_for_queue(event: dict[str, Any], facts: EventFacts, queue: EventQueue,
                      caps: dict[str, Any]) -> list[dict[str, Any]]:
    if queue.receives_typing_notifications is False:
        return []
    if event["type"] == "typing" and event.get("message_type") == "stream":
        if not caps.get("stream_typing_notifications"):
            return []
        if event.get("topic") == "" and not caps.get("empty_topic_name"):
            return [{**event, "topic": _empty_topic_display(facts)}]
    if event["type"] == "typing_edit_message":
        recipient = event.get("recipient") or {}
        if recipient.get("topic") == "" and not caps.get("empty_topic_name"):
            return [{**event, "recipient": {**recipient, "topic": _empty_topic_display(facts)}}]
    return [event]


def _empty_topic_display(facts: EventFacts) -> str:
    return facts.get("empty_topic_display_name") or EMPTY_TOPIC_DISPLAY_DEFAULT


def _message_for_queue(event: dict[str, Any], facts: EventFacts, options: dict[str, Any],
                       user_id: int, user_flags: dict[str, list[str]]) -> dict[str, Any]:
    # A new event and message dict per queue, sharing the nested values (which no step
    # after this changes): a deep copy per queue was 35 us, 0.35 s of a 10,000-queue batch.
    message = dict(event["message"])
    form = {**event, "message": message, "flags": list(user_flags.get(str(user_id), []))}
    raw = facts.get("raw_content")
    if options.get("apply_markdown", True) is False and raw is not None:
        message["content"] = raw
        message["content_type"] = "text/x-markdown"
    if message.get("type") == "stream" and message.get("subject") == "" and not capabilities(
            options).get("empty_topic_name"):
        message["subject"] = _empty_topic_display(facts)
    return form


def _legacy_settings_events(event: dict[str, Any], facts: EventFacts
                            ) -> list[dict[str, Any]]:
    setting, value = event["property"], event["value"]
    user = facts.get("user_email", "")
    if setting in LEGACY_DISPLAY_SETTINGS:
        display: UpdateDisplaySettingsEvent = {"type": "update_display_settings",
                                               "user": user, "setting_name": setting,
                                               "setting": value}
        if "language_name" in event:
            display["language_name"] = event["language_name"]
        return [dict(display)]
    if setting in LEGACY_NOTIFICATION_SETTINGS:
        notification: UpdateGlobalNotificationsEvent = {
            "type": "update_global_notifications", "user": user,
            "notification_name": setting, "setting": value}
        return [dict(notification)]
    return []
