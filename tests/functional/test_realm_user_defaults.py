"""PATCH /realm/user_settings_defaults: state, events, and new users starting with them."""
from __future__ import annotations


def defaults(account) -> dict:
    response = account.post("/register", {"fetch_event_types": ["realm_user_settings_defaults"]})
    assert response.ok, response.json
    return response.json["realm_user_settings_defaults"]


def error_of(response) -> str:
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST", response.json
    return response.json["msg"]


def test_defaults_change_with_events_and_apply_to_new_users(realm, register_queue,
                                                            fetch_events, drain_events):
    before = defaults(realm.member)
    assert before["twenty_four_hour_time"] is False and before["enter_sends"] is False
    assert "emojiset_choices" in before and "available_notification_sounds" in before
    queue = register_queue(realm.member, event_types=["realm_user_settings_defaults"])[
        "queue_id"]
    # WHEN an administrator changes two defaults (one to its current value)
    response = realm.admin.patch("/realm/user_settings_defaults", {
        "twenty_four_hour_time": True, "web_font_size_px": 18, "enter_sends": False})
    assert response.ok, response.json
    # THEN the state shows them, and the organization heard each changed one
    after = defaults(realm.guest)
    assert (after["twenty_four_hour_time"], after["web_font_size_px"]) == (True, 18)
    drain_events()
    events = [{k: v for k, v in e.items() if k != "id"} for e in fetch_events(realm.member,
                                                                               queue)]
    assert events == [
        {"type": "realm_user_settings_defaults", "op": "update",
         "property": "twenty_four_hour_time", "value": True},
        {"type": "realm_user_settings_defaults", "op": "update",
         "property": "web_font_size_px", "value": 18}]
    # AND a user created afterwards starts with them; existing users keep theirs
    newcomer = realm.add_user("Nora Newcomer")
    settings = newcomer.post("/register", {"fetch_event_types": ["user_settings"]}).json[
        "user_settings"]
    assert (settings["twenty_four_hour_time"], settings["web_font_size_px"]) == (True, 18)
    mine = realm.member.post("/register", {"fetch_event_types": ["user_settings"]}).json[
        "user_settings"]
    assert mine["twenty_four_hour_time"] is False
    # AND a second change keeps the first
    assert realm.owner.patch("/realm/user_settings_defaults", {"enter_sends": True}).ok
    after = defaults(realm.member)
    assert (after["twenty_four_hour_time"], after["enter_sends"]) == (True, True)


def test_refusals(realm):
    for account in (realm.moderator, realm.member, realm.guest):
        assert error_of(account.patch("/realm/user_settings_defaults",
                                      {"enter_sends": True})) == \
            "Only the organization's administrators can do this."
    assert error_of(realm.admin.patch("/realm/user_settings_defaults",
                                      {"color_scheme": 99})) == "color_scheme has an unacceptable value"
    assert error_of(realm.admin.patch("/realm/user_settings_defaults",
                                      {"notification_sound": "trumpet"})) == \
        "'trumpet' is not one of the notification sounds"
    assert defaults(realm.admin)["enter_sends"] is False
