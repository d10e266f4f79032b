"""forms_for_queue: which events a queue gets, in which form (no AWS needed)."""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib.delivery.filters import forms_for_queue
from chalicelib.models.events import EventQueue


def queue(event_types: list[str] | None = None, receives_typing: bool = True,
          **options: Any) -> EventQueue:
    return EventQueue("q", realm_id=1, user_id=7, options={"event_types": event_types,
                                                             **options},
                      receives_typing_notifications=receives_typing)


SETTING = {"type": "user_settings", "op": "update", "property": "emojiset", "value": "text"}
SETTING_FACTS = {"user_email": "me@example.com"}
NEW_SETTING = {**SETTING, "property": "web_font_size_px", "value": 18}
DIRECT_TYPING = {"type": "typing", "op": "start", "message_type": "direct",
                 "sender": {"user_id": 1, "email": "a@x"}, "recipients": []}
STREAM_TYPING = {"type": "typing", "op": "start", "message_type": "stream",
                 "sender": {"user_id": 1, "email": "a@x"}, "stream_id": 3, "topic": ""}
LOBBY = {"empty_topic_display_name": "lobby"}


def types_of(forms: list[dict[str, Any]]) -> list[str]:
    return [f["type"] for f in forms]


@pytest.mark.parametrize("event_types, caps, expected", [
    (None, {}, ["user_settings", "update_display_settings"]),
    (None, {"user_settings_object": True}, ["user_settings"]),
    (["user_settings"], {}, ["user_settings"]),
    (["update_display_settings"], {}, ["update_display_settings"]),
    (["update_display_settings"], {"user_settings_object": True}, []),
    (["message"], {}, []),
])
def test_settings_event_forms(event_types, caps, expected, advertise):
    advertise(438)   # from level 439 nobody gets the deprecated forms
    forms = forms_for_queue(SETTING, SETTING_FACTS, queue(event_types,
                                                          client_capabilities=caps), {})
    assert types_of(forms) == expected
    for form in forms:
        assert not any(key.startswith("_") for key in form)
    legacy = [f for f in forms if f["type"] == "update_display_settings"]
    assert all(f == {"type": "update_display_settings", "user": "me@example.com",
                     "setting_name": "emojiset", "setting": "text"} for f in legacy)


def test_settings_newer_than_the_legacy_events_have_no_legacy_form():
    assert types_of(forms_for_queue(NEW_SETTING, SETTING_FACTS, queue(), {})) == [
        "user_settings"]


def test_typing_filters():
    assert forms_for_queue(DIRECT_TYPING, {}, queue(), {}) == [DIRECT_TYPING]
    assert forms_for_queue(DIRECT_TYPING, {}, queue(receives_typing=False), {}) == []
    assert forms_for_queue(DIRECT_TYPING, {}, queue(["message"]), {}) == []
    # Channel typing: only with the capability; the empty topic shown as the realm names it
    assert forms_for_queue(STREAM_TYPING, LOBBY, queue(), {}) == []
    [form] = forms_for_queue(STREAM_TYPING, LOBBY, queue(client_capabilities={
        "stream_typing_notifications": True}), {})
    assert form == {**STREAM_TYPING, "topic": "lobby"}
    [modern] = forms_for_queue(STREAM_TYPING, LOBBY, queue(client_capabilities={
        "stream_typing_notifications": True, "empty_topic_name": True}), {})
    assert modern["topic"] == ""


def test_heartbeats_reach_every_queue_and_types_filter_the_rest():
    assert types_of(forms_for_queue({"type": "heartbeat"}, {}, queue(["message"]), {})) == [
        "heartbeat"]
    assert forms_for_queue({"type": "realm_user", "op": "add"}, {}, queue(["message"]),
                           {}) == []
    assert types_of(forms_for_queue({"type": "realm_user", "op": "add"}, {}, queue(),
                                    {})) == ["realm_user"]


def test_message_form_is_per_user():
    event = {"type": "message", "flags": [],
             "message": {"id": 5, "type": "stream", "subject": "", "content": "<p>x</p>",
                         "stream_id": 3, "display_recipient": "c"}}
    facts = {**LOBBY, "raw_content": "x"}
    flags = {"7": ["mentioned"], "8": ["read"]}
    [raw] = forms_for_queue(event, facts, queue(apply_markdown=False), flags)
    assert raw["flags"] == ["mentioned"]
    assert raw["message"] == {"id": 5, "type": "stream", "subject": "lobby", "content": "x",
                              "content_type": "text/x-markdown", "stream_id": 3,
                              "display_recipient": "c"}
    [html] = forms_for_queue(event, facts, queue(apply_markdown=True, client_capabilities={
        "empty_topic_name": True}), flags)
    assert html["message"]["content"] == "<p>x</p>" and html["message"]["subject"] == ""
    assert event["message"]["subject"] == ""   # the shared event is never modified
    assert forms_for_queue(event, facts, queue(narrow=[["channel", "other"]]), flags) == []


@pytest.mark.parametrize("public, web_public, operand, expected", [
    (True, False, "public", True), (False, False, "public", False),
    (True, True, "web-public", True), (True, False, "web-public", False),
    (None, None, "public", False),   # an event from before the facts: not known, not public
])
def test_channels_narrow_reads_the_privacy_the_send_carries(public, web_public, operand,
                                                            expected):
    # GIVEN a channel message whose send told (or not) its channel's privacy
    message: dict[str, Any] = {"id": 5, "type": "stream", "subject": "t", "content": "",
                               "stream_id": 3, "display_recipient": "c", "sender_id": 1}
    facts = {} if public is None else {"channel_public": public,
                                       "channel_web_public": web_public}
    event = {"type": "message", "flags": [], "message": message}
    # WHEN a queue narrowed by channels:<operand> is offered it
    forms = forms_for_queue(event, facts, queue(narrow=[
        {"operator": "channels", "operand": operand, "negated": False}]), {})
    # THEN it gets the message only if the channel is so, as the event is
    assert bool(forms) is expected
    assert all(form["message"] == message for form in forms)


def test_owner_settings_are_read_only_for_a_narrow_with_is_muted():
    from chalicelib.narrow import ReaderContext

    # GIVEN a message in a topic the queue's owner (user 7) muted
    event = {"type": "message", "flags": [],
             "message": {"id": 5, "type": "stream", "subject": "Noisy", "content": "",
                         "stream_id": 3, "display_recipient": "c", "sender_id": 1}}
    asked: list[tuple[int, int]] = []

    def settings(realm_id: int, user_id: int) -> ReaderContext:
        asked.append((realm_id, user_id))
        return ReaderContext(user_id, muted_topics=frozenset({(3, "noisy")}))
    # WHEN queues narrowed by a channel, by is:muted and by its negation are offered it
    by_channel = forms_for_queue(event, {}, queue(narrow=[["channel", "c"]]), {}, settings)
    muted = forms_for_queue(event, {}, queue(narrow=[["is", "muted"]]), {}, settings)
    not_muted = forms_for_queue(event, {}, queue(narrow=[
        {"operator": "is", "operand": "muted", "negated": True}]), {}, settings)
    # THEN only the is:muted narrows asked for the owner's settings, and they decide
    assert len(by_channel) == 1 and len(muted) == 1 and not_muted == []
    assert asked == [(1, 7), (1, 7)]


def test_muted_topics_only_for_queues_without_user_topic():
    from chalicelib.delivery.filters import forms_for_queue
    from chalicelib.models.events import EventQueue

    event = {"type": "muted_topics", "muted_topics": []}
    modern = EventQueue("q1", realm_id=1, user_id=1,
                        options={"event_types": ["user_topic", "muted_topics"]})
    legacy = EventQueue("q2", realm_id=1, user_id=1, options={"event_types": ["muted_topics"]})
    assert forms_for_queue(event, {}, modern, {}) == []
    assert forms_for_queue(event, {}, legacy, {}) == [event]


def test_user_topic_empty_topic_shows_the_display_name_without_the_capability():
    from chalicelib.delivery.filters import forms_for_queue
    from chalicelib.models.events import EventQueue

    event = {"type": "user_topic", "stream_id": 1, "topic_name": "", "last_updated": 1,
             "visibility_policy": 1}
    facts = {"empty_topic_display_name": "misc"}
    old = EventQueue("q1", realm_id=1, user_id=1, options={"event_types": None})
    new = EventQueue("q2", realm_id=1, user_id=1, options={
        "event_types": None, "client_capabilities": {"empty_topic_name": True}})
    assert forms_for_queue(event, facts, old, {})[0]["topic_name"] == "misc"
    assert forms_for_queue(event, facts, new, {})[0]["topic_name"] == ""
