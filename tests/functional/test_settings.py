"""PATCH /settings: validation, storage, and the user_settings events in their forms."""
from __future__ import annotations

import json
import threading

import pytest

from chalicelib.actions.users.settings import do_update_settings
from chalicelib.core.principal import Principal
from chalicelib.rules.setting_choices import INT_CHOICES, STR_CHOICES

MODERN = {"user_settings_object": True}
ALL_SETTINGS_TYPES = ["user_settings", "update_display_settings", "update_global_notifications"]


def strip_ids(events):
    return [{k: v for k, v in e.items() if k != "id"} for e in events]


def unordered(events):
    """The events of one transaction: separate outbox items, so the stream may reorder them."""
    return sorted(strip_ids(events), key=lambda e: json.dumps(e, sort_keys=True))


def test_changes_are_stored_and_announced(realm, register_queue, fetch_events, drain_events):
    # GIVEN a modern client and the user's settings at their defaults
    queue_id = register_queue(realm.member, event_types=ALL_SETTINGS_TYPES,
                              client_capabilities=MODERN)["queue_id"]
    # WHEN several settings change at once (one of them to its current value)
    response = realm.member.patch("/settings", {
        "twenty_four_hour_time": True, "color_scheme": 2, "default_language": "de",
        "enable_sounds": True, "emojiset": "twitter"})
    assert response.ok, response.json
    drain_events()
    # THEN one user_settings event per changed setting, no legacy forms
    assert unordered(fetch_events(realm.member, queue_id)) == unordered([
        {"type": "user_settings", "op": "update", "property": "twenty_four_hour_time",
         "value": True},
        {"type": "user_settings", "op": "update", "property": "color_scheme", "value": 2},
        {"type": "user_settings", "op": "update", "property": "default_language",
         "value": "de", "language_name": "German"},
        {"type": "user_settings", "op": "update", "property": "emojiset", "value": "twitter"}])
    # AND a new registration shows the stored values
    state = register_queue(realm.member, event_types=["user_settings"],
                           client_capabilities=MODERN)["user_settings"]
    assert (state["twenty_four_hour_time"], state["color_scheme"], state["default_language"],
            state["emojiset"]) == (True, 2, "de", "twitter")
    # AND other users' settings did not change
    other = register_queue(realm.admin, event_types=["user_settings"],
                           client_capabilities=MODERN)["user_settings"]
    assert other["color_scheme"] == 1


def test_old_clients_get_the_deprecated_forms(realm, register_queue, fetch_events,
                                              drain_events, advertise):
    advertise(438)   # level 439 stopped sending the deprecated forms
    # GIVEN a client without user_settings_object asking for all three types
    old = register_queue(realm.member, event_types=ALL_SETTINGS_TYPES)["queue_id"]
    # AND one asking for user_settings only
    settings_only = register_queue(realm.member, event_types=["user_settings"])["queue_id"]
    # WHEN a display setting, a notification setting and a newer setting change
    assert realm.member.patch("/settings", {"default_language": "fr", "enable_sounds": False,
                                            "web_font_size_px": 18}).ok
    drain_events()
    # THEN the old client gets the modern event plus the legacy form where one exists
    user = realm.member.email
    assert unordered(fetch_events(realm.member, old)) == unordered([
        {"type": "user_settings", "op": "update", "property": "default_language",
         "value": "fr", "language_name": "French"},
        {"type": "update_display_settings", "user": user, "setting_name": "default_language",
         "setting": "fr", "language_name": "French"},
        {"type": "user_settings", "op": "update", "property": "enable_sounds", "value": False},
        {"type": "update_global_notifications", "user": user,
         "notification_name": "enable_sounds", "setting": False},
        {"type": "user_settings", "op": "update", "property": "web_font_size_px",
         "value": 18}])
    assert [e["type"] for e in fetch_events(realm.member, settings_only)] == [
        "user_settings"] * 3
    # AND from level 439 on, nobody gets the deprecated forms
    advertise(439)
    last = fetch_events(realm.member, old)[-1]["id"]
    assert realm.member.patch("/settings", {"default_language": "de"}).ok
    drain_events()
    assert [e["type"] for e in fetch_events(realm.member, old, last)] == ["user_settings"]


def test_timezone_change_tells_the_realm(realm, register_queue, fetch_events, drain_events,
                                         advertise):
    advertise(438)
    # GIVEN another user watching realm_user events, and an old client of the member
    watcher = register_queue(realm.owner, event_types=["realm_user"])["queue_id"]
    old = register_queue(realm.member, event_types=["update_display_settings"])["queue_id"]
    # WHEN the member sets a time zone
    assert realm.member.patch("/settings", {"timezone": "Europe/Berlin"}).ok
    drain_events()
    # THEN the old client gets the deprecated display-settings form
    assert strip_ids(fetch_events(realm.member, old)) == [
        {"type": "update_display_settings", "user": realm.member.email,
         "setting_name": "timezone", "setting": "Europe/Berlin"}]
    # THEN the realm sees the timezone person form, and the user record has it
    assert strip_ids(fetch_events(realm.owner, watcher)) == [
        {"type": "realm_user", "op": "update", "person": {
            "user_id": realm.member.user_id, "email": realm.member.email,
            "timezone": "Europe/Berlin"}}]
    me = realm.member.get("/users/me").json
    assert me["timezone"] == "Europe/Berlin"


def test_nothing_changed_is_a_quiet_success(realm, register_queue, fetch_events,
                                            drain_events):
    queue_id = register_queue(realm.member, event_types=["user_settings"])["queue_id"]
    assert realm.member.patch("/settings", {"enable_sounds": True}).ok
    assert realm.member.patch("/settings", {}).ok
    drain_events()
    assert fetch_events(realm.member, queue_id) == []


ALLOWED = {
    "web_channel_default_view": [1, 2, 3, 4],
    "web_mark_read_on_scroll_policy": [1, 2, 3],
    "desktop_icon_count_display": [1, 2, 3, 4],
    "realm_name_in_email_notifications_policy": [1, 2, 3],
    "automatically_follow_topics_policy": [1, 2, 3, 4],
    "automatically_unmute_topics_in_muted_streams_policy": [1, 2, 3, 4],
    "email_address_visibility": [1, 2, 3, 4, 5],
    "color_scheme": [1, 2, 3],
    "demote_inactive_streams": [1, 2, 3],
    "user_list_style": [1, 2, 3],
    "web_stream_unreads_count_display_policy": [1, 2, 3],
    "web_home_view": ["recent_topics", "inbox", "all_messages"],
    "emojiset": ["google", "twitter", "text"],
    "web_animate_image_previews": ["always", "on_hover", "never"],
    "web_font_size_px": [12, 24],
    "web_line_height_percent": [100, 200],
    "email_notifications_batching_period_seconds": [1, 7 * 24 * 3600],
    "default_language": ["pt_BR", "en"],
    "timezone": ["America/Argentina/Buenos_Aires", ""],
    "notification_sound": ["ding", "none"],
}


def test_every_allowed_value_is_accepted(realm):
    for name, values in ALLOWED.items():
        for value in values:
            response = realm.member.patch("/settings", {name: value})
            assert response.ok, (name, value, response.json)
    state = realm.member.post("/register", {"event_types": ["user_settings"],
                                            "client_capabilities": MODERN}).json
    assert {name: state["user_settings"][name] for name in ALLOWED} == {
        name: values[-1] for name, values in ALLOWED.items()}


@pytest.mark.parametrize("params, message", [
    ({"color_scheme": 0}, "color_scheme has an unacceptable value"),
    ({"web_channel_default_view": 5}, "web_channel_default_view has an unacceptable value"),
    ({"web_font_size_px": 25}, "Invalid web_font_size_px: use a value from 12 to 24"),
    ({"web_line_height_percent": 99},
     "Invalid web_line_height_percent: use a value from 100 to 200"),
    ({"web_line_height_percent": 201},
     "Invalid web_line_height_percent: use a value from 100 to 200"),
    ({"email_notifications_batching_period_seconds": 7 * 24 * 3600 + 1},
     "604801 seconds is not an allowed email batching period"),
    ({"default_language": "EN"}, "default_language is not a supported language"),
    ({"timezone": "CEST"}, "Unknown time zone"),
    ({"web_font_size_px": "16.5"}, "web_font_size_px must be an integer"),
    ({"color_scheme": 7}, "color_scheme has an unacceptable value"),
    ({"web_channel_default_view": 0}, "web_channel_default_view has an unacceptable value"),
    ({"demote_inactive_streams": 4}, "demote_inactive_streams has an unacceptable value"),
    ({"user_list_style": 9}, "user_list_style has an unacceptable value"),
    ({"web_stream_unreads_count_display_policy": 5},
     "web_stream_unreads_count_display_policy has an unacceptable value"),
    ({"web_home_view": "everything"}, "web_home_view has an unacceptable value"),
    ({"emojiset": "comic"}, "emojiset has an unacceptable value"),
    ({"web_animate_image_previews": "sometimes"}, "web_animate_image_previews has an unacceptable value"),
    ({"default_language": "xx"}, "default_language is not a supported language"),
    ({"timezone": "Mars/Olympus"}, "Unknown time zone"),
    ({"notification_sound": "boom"}, "'boom' is not one of the notification sounds"),
    ({"email_notifications_batching_period_seconds": 0},
     "0 seconds is not an allowed email batching period"),
    ({"web_font_size_px": -3}, "Invalid web_font_size_px: use a value from 12 to 24"),
    ({"web_mark_read_on_scroll_policy": 4}, "web_mark_read_on_scroll_policy has an unacceptable value"),
    ({"desktop_icon_count_display": 0}, "desktop_icon_count_display has an unacceptable value"),
    ({"realm_name_in_email_notifications_policy": 4},
     "realm_name_in_email_notifications_policy has an unacceptable value"),
    ({"automatically_follow_topics_policy": 5},
     "automatically_follow_topics_policy has an unacceptable value"),
    ({"automatically_unmute_topics_in_muted_streams_policy": 0},
     "automatically_unmute_topics_in_muted_streams_policy has an unacceptable value"),
    ({"email_address_visibility": 6}, "email_address_visibility has an unacceptable value"),
    ({"email_address_visibility": 0}, "email_address_visibility has an unacceptable value"),
    ({"enter_sends": "yes please"}, None),
    ({"enable_sounds": "loud"}, None),
    ({"color_scheme": "dark"}, None),
])
def test_invalid_values_change_nothing(realm, params, message):
    # WHEN a request carries one valid and one invalid value
    response = realm.member.patch("/settings", {"twenty_four_hour_time": True, **params})
    # THEN it fails as a whole
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST"
    if message is not None:
        assert response.json["msg"] == message
    state = realm.member.post("/register", {"event_types": ["user_settings"],
                                            "client_capabilities": MODERN}).json
    assert state["user_settings"]["twenty_four_hour_time"] is False


def test_unsupported_parameters_are_reported(realm):
    response = realm.member.patch("/settings", {"dense_mode": True, "enable_sounds": False})
    assert response.ok and response.json["ignored_parameters_unsupported"] == ["dense_mode"]


def test_concurrent_changes_to_different_settings_all_stick(realm):
    # GIVEN 6 threads, each changing its own setting at the same moment
    caller = Principal(realm.realm_id, realm.member.user_id, realm.member.email, 400, False)
    changes = [{"twenty_four_hour_time": True}, {"color_scheme": 3}, {"emojiset": "text"},
               {"enable_sounds": False}, {"web_font_size_px": 20}, {"left_side_userlist": True}]
    barrier = threading.Barrier(len(changes))
    errors: list[BaseException] = []

    def change(requested):
        try:
            barrier.wait()
            do_update_settings(caller, requested)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=change, args=(c,)) for c in changes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN every change is stored (no writer overwrote another's keys)
    assert errors == []
    state = realm.member.post("/register", {"event_types": ["user_settings"],
                                            "client_capabilities": MODERN}).json
    for requested in changes:
        for name, value in requested.items():
            assert state["user_settings"][name] == value


def test_name_settings_and_password_change_together(realm, anonymous, register_queue,
                                                     fetch_events, drain_events):
    from tests.functional.test_account import fetch_key, set_password

    set_password(realm.member, "first password")
    watcher = register_queue(realm.admin, event_types=["realm_user"])["queue_id"]
    own = register_queue(realm.member, event_types=["user_settings"],
                         client_capabilities=MODERN)["queue_id"]
    response = realm.member.patch("/settings", {
        "full_name": "Maxi", "timezone": "Asia/Tokyo", "color_scheme": 3,
        "old_password": "first password", "new_password": "second password"})
    assert response.ok, response.json
    me = realm.member.get("/users/me").json
    assert (me["full_name"], me["timezone"]) == ("Maxi", "Asia/Tokyo")
    assert fetch_key(anonymous, realm, realm.member.email, "second password").ok
    drain_events()
    assert sorted(e["person"].get("full_name", e["person"].get("timezone"))
                  for e in fetch_events(realm.admin, watcher)) == ["Asia/Tokyo", "Maxi"]
    assert sorted(e["property"] for e in fetch_events(realm.member, own)) == [
        "color_scheme", "timezone"]


@pytest.mark.parametrize("bad", [{"color_scheme": 9}, {"old_password": "wrong",
                                                        "new_password": "long enough"},
                                 {"email": "admin@{domain}"}])
def test_one_bad_part_changes_nothing(realm, register_queue, fetch_events, drain_events,
                                      bad):
    from tests.functional.conftest import sent_emails

    bad = {k: v.format(domain=f"{realm.subdomain}.example.com") if isinstance(v, str) else v
           for k, v in bad.items()}
    queue_id = register_queue(realm.admin, event_types=["realm_user"])["queue_id"]
    response = realm.member.patch("/settings", {
        "full_name": "Changed Name", "twenty_four_hour_time": True,
        "email": f"new@{realm.subdomain}.example.com", **bad})
    assert response.status == 400, response.json
    me = realm.member.get("/users/me").json
    assert me["full_name"] == "Max Member"
    state = realm.member.post("/register", {"event_types": ["user_settings"],
                                            "client_capabilities": MODERN}).json
    assert state["user_settings"]["twenty_four_hour_time"] is False
    assert sent_emails(f"new@{realm.subdomain}.example.com") == []
    drain_events()
    assert fetch_events(realm.admin, queue_id) == []


def test_a_password_changed_meanwhile_is_not_overwritten(realm, monkeypatch):
    """The new hash is written only over the hash the old password was checked against."""
    from chalicelib.actions.users import settings
    from chalicelib.models.users import User
    from chalicelib.rules.passwords import check_password
    from tests.functional.test_account import set_password

    set_password(realm.member, "first password")
    real_check = settings.check_new_password

    def check_then_race(old, new, user):
        real_check(old, new, user)
        set_password(realm.member, "changed elsewhere")

    monkeypatch.setattr(settings, "check_new_password", check_then_race)
    response = realm.member.patch("/settings", {"old_password": "first password",
                                                "new_password": "second password",
                                                "full_name": "Not Stored"})
    assert response.status == 409 and response.json["code"] == "CONFLICT"
    user = User.get(realm.realm_id, realm.member.user_id)
    assert check_password("changed elsewhere", user.password_hash)
    assert user.full_name == "Max Member"


def test_limited_access_keeps_user_changes_from_guests(realm, register_queue, fetch_events,
                                                        drain_events):
    """realm_user updates go to those who can access the user (can_access_all_users_group)."""
    from chalicelib.rules.realm_settings import system_group_id

    assert realm.owner.patch("/realm", {"can_access_all_users_group": {
        "new": system_group_id("role:members")}}).ok
    queues = {name: register_queue(getattr(realm, name), event_types=["realm_user"])[
        "queue_id"] for name in ("guest", "moderator")}
    assert realm.member.patch("/settings", {"full_name": "New Name",
                                            "timezone": "Europe/Paris"}).ok
    assert realm.guest.patch("/settings", {"full_name": "Guest Renamed"}).ok
    drain_events()
    # THEN the guest hears only of their own change, the moderator of both users'
    assert [e["person"] for e in fetch_events(realm.guest, queues["guest"])] == [
        {"user_id": realm.guest.user_id, "full_name": "Guest Renamed"}]
    assert sorted(e["person"]["user_id"] for e in fetch_events(
        realm.moderator, queues["moderator"])) == sorted(
        [realm.member.user_id] * 2 + [realm.guest.user_id])


def test_a_retry_finishes_copying_the_typing_setting_to_the_queues(realm, register_queue,
                                                                   monkeypatch):
    """The setting is stored first, then copied onto the user's live queues (which the
    fan-out reads). If the request dies in between, the same request again, which changes
    nothing stored, must still bring the queues in line."""
    from chalicelib.actions.users import settings
    from chalicelib.models.events import EventQueue

    queue_id = register_queue(realm.member, event_types=["typing"])["queue_id"]
    real_copy = settings.set_receives_typing_notifications
    crashes = [RuntimeError("the Lambda timed out")]

    def copy_or_crash(*args):
        if crashes:
            raise crashes.pop()
        real_copy(*args)
    monkeypatch.setattr(settings, "set_receives_typing_notifications", copy_or_crash)
    assert realm.member.patch("/settings", {"receives_typing_notifications": False}).status \
        == 500
    assert EventQueue.get(queue_id).receives_typing_notifications is True   # not yet
    assert realm.member.patch("/settings", {"receives_typing_notifications": False}).ok
    assert EventQueue.get(queue_id).receives_typing_notifications is False


def _another_allowed_value(name, current):
    """A valid value of the setting other than `current` (None if it has no other)."""
    if isinstance(current, bool):
        return not current
    choices = {**INT_CHOICES, **STR_CHOICES}.get(name)
    if choices is not None:
        others = sorted(set(choices) - {current})
        return others[0] if others else None
    return {"web_font_size_px": 20, "web_line_height_percent": 150,
            "email_notifications_batching_period_seconds": 300, "default_language": "de",
            "timezone": "Europe/Berlin", "notification_sound": "ding"}[name]


def test_every_setting_clients_see_can_be_changed(realm, register_queue, fetch_events,
                                                   drain_events):
    # GIVEN the settings a modern client sees, each at its default
    registered = register_queue(realm.member, event_types=["user_settings"],
                                client_capabilities=MODERN)
    shown = {k: v for k, v in registered["user_settings"].items()
             if k not in ("emojiset_choices", "available_notification_sounds")}
    assert {"send_private_typing_notifications", "send_stream_typing_notifications",
            "send_read_receipts", "enter_sends", "web_mark_read_on_scroll_policy",
            "automatically_follow_topics_policy"} <= set(shown)
    changes = {name: _another_allowed_value(name, value) for name, value in shown.items()}
    changes = {name: value for name, value in changes.items() if value is not None}
    assert set(shown) == set(changes)
    # WHEN the member changes every one of them in one request
    response = realm.member.patch("/settings", changes)
    assert response.ok, response.json
    assert "ignored_parameters_unsupported" not in response.json
    drain_events()
    # THEN each is announced with its new value
    events = fetch_events(realm.member, registered["queue_id"])
    assert {e["property"]: e["value"] for e in events if e["type"] == "user_settings"} == changes
    # AND a new registration shows them all
    again = register_queue(realm.member, event_types=["user_settings"],
                           client_capabilities=MODERN)["user_settings"]
    assert {name: again[name] for name in changes} == changes


def test_administrators_change_others_settings_in_bulk(realm, register_queue, fetch_events,
                                                       drain_events):
    from tests.functional.user_group_helpers import create_ok
    team = create_ok(realm.admin, "Team", [realm.moderator.user_id])
    # GIVEN a member who chose a font size themself
    assert realm.member.patch("/settings", {"web_font_size_px": 20}).ok
    drain_events()
    queue_id = register_queue(realm.member, event_types=["user_settings"])["queue_id"]

    def settings_of(account) -> dict:
        return account.post("/register", {"fetch_event_types": ["user_settings"]}).json[
            "user_settings"]

    # WHEN an administrator sets it for a user and a group's members, leaving own choices
    response = realm.admin.patch("/settings", {"web_font_size_px": 18, "enter_sends": True,
                                               "target_users": {
                                                   "user_ids": [realm.member.user_id],
                                                   "group_ids": [team],
                                                   "skip_if_already_edited": True}})
    assert response.ok, response.json
    # THEN the member keeps their font size but gets the other setting (level 444)
    member = settings_of(realm.member)
    assert (member["web_font_size_px"], member["enter_sends"]) == (20, True)
    moderator = settings_of(realm.moderator)
    assert (moderator["web_font_size_px"], moderator["enter_sends"]) == (18, True)
    assert settings_of(realm.guest)["enter_sends"] is False   # not targeted
    drain_events()
    assert [(e["property"], e["value"]) for e in fetch_events(realm.member, queue_id)] == [
        ("enter_sends", True)]
    # AND without skip_if_already_edited, everyone targeted gets it
    assert realm.admin.patch("/settings", {"web_font_size_px": 18, "target_users": {
        "user_ids": [realm.member.user_id]}}).ok
    assert settings_of(realm.member)["web_font_size_px"] == 18
    # AND privacy settings, account changes and non-administrators are refused
    for params in ({"send_read_receipts": False}, {"full_name": "X"}):
        refused = realm.admin.patch("/settings", {**params, "target_users": {
            "user_ids": [realm.member.user_id]}})
        assert refused.status == 400, refused.json
    refused = realm.moderator.patch("/settings", {"enter_sends": False, "target_users": {
        "user_ids": [realm.member.user_id]}})
    assert refused.json["msg"] == "Only the organization's administrators can do this."
    for target in ({"user_ids": [999999]}, {"group_ids": [999999]}, {}):
        refused = realm.admin.patch("/settings", {"enter_sends": False,
                                                  "target_users": target})
        assert refused.status == 400, refused.json


def test_the_recent_view_is_named_recent_from_level_454(realm, register_queue, fetch_events,
                                                         drain_events, advertise):
    # GIVEN a server below level 454: the recent view is "recent_topics", "recent" unknown
    advertise(453)
    refused = realm.member.patch("/settings", {"web_home_view": "recent"})
    assert refused.status == 400 and refused.json["msg"] == "web_home_view has an unacceptable value"
    assert realm.member.patch("/settings", {"web_home_view": "recent_topics"}).ok
    assert realm.admin.patch("/realm/user_settings_defaults",
                             {"web_home_view": "recent_topics"}).ok

    def shown(user):
        state = register_queue(user, event_types=["user_settings",
                                                  "realm_user_settings_defaults"],
                               client_capabilities=MODERN)
        return (state["user_settings"]["web_home_view"],
                state["realm_user_settings_defaults"]["web_home_view"])
    assert shown(realm.member) == ("recent_topics", "recent_topics")
    # WHEN the server advertises 454
    advertise(454)
    # THEN what was stored is shown by the new name
    assert shown(realm.member) == ("recent", "recent")
    drain_events()
    queue_id = register_queue(realm.member, event_types=["user_settings"],
                              client_capabilities=MODERN)["queue_id"]
    # AND an older client's name is still taken, stored and announced by the new one
    assert realm.member.patch("/settings", {"web_home_view": "inbox"}).ok
    assert realm.member.patch("/settings", {"web_home_view": "recent_topics"}).ok
    assert realm.member.patch("/settings", {"web_home_view": "recent"}).ok   # unchanged
    drain_events()
    assert [e["value"] for e in fetch_events(realm.member, queue_id)
            if e.get("property") == "web_home_view"] == ["inbox", "recent"]
    assert shown(realm.member) == ("recent", "recent")
