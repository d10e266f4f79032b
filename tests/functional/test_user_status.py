"""User statuses: POST /users/me/status, POST and GET /users/{user_id}/status, events, state."""
from __future__ import annotations

import pytest

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def set_status(account, **params):
    return account.post("/users/me/status", params)


def status_of(viewer, user):
    response = viewer.get(f"/users/{user.user_id}/status")
    assert response.ok, response.json
    return response.json["status"]


def presence_enabled(register_queue, account):
    return register_queue(account, event_types=["user_settings"])["user_settings"][
        "presence_enabled"]


def assert_bad_request(response, msg):
    assert response.status == 400, response.json
    assert response.json["code"] == "BAD_REQUEST"
    assert response.json["msg"] == msg


def add_custom_emoji(account, name):
    response = account.upload([("f", "e.png", PNG)], path=f"/realm/emoji/{name}")
    assert response.ok, response.json
    emoji = account.get("/realm/emoji").json["emoji"]
    return next(i for i, e in emoji.items() if e["name"] == name and not e["deactivated"])


def test_set_text_and_emoji_then_read_it_back(realm):
    # WHEN a member sets text and a unicode emoji by name only
    assert set_status(realm.member, status_text="  on vacation ", emoji_name="car").ok
    # THEN anyone reads it with the code and type filled in, the text trimmed
    assert status_of(realm.guest, realm.member) == {
        "status_text": "on vacation", "emoji_name": "car", "emoji_code": "1f697",
        "reaction_type": "unicode_emoji"}
    assert status_of(realm.member, realm.admin) == {}


def test_only_passed_fields_change_and_empty_values_clear(realm):
    assert set_status(realm.member, status_text="busy", emoji_name="car").ok
    assert set_status(realm.member, status_text="in a meeting").ok
    assert status_of(realm.member, realm.member)["emoji_name"] == "car"
    assert set_status(realm.member, emoji_name="heart", emoji_code="2764",
                      reaction_type="unicode_emoji").ok
    assert status_of(realm.member, realm.member) == {
        "status_text": "in a meeting", "emoji_name": "heart", "emoji_code": "2764",
        "reaction_type": "unicode_emoji"}
    assert set_status(realm.member, emoji_name="").ok          # clears the emoji only
    assert status_of(realm.member, realm.member) == {"status_text": "in a meeting"}
    assert set_status(realm.member, status_text="").ok         # clears the text
    assert status_of(realm.member, realm.member) == {}


def test_status_text_limit(realm):
    assert_bad_request(set_status(realm.member, status_text="x" * 61),
                       "status_text is over the limit of 60 characters")
    assert status_of(realm.member, realm.member) == {}
    assert set_status(realm.member, status_text="x" * 60).ok
    assert status_of(realm.member, realm.member) == {"status_text": "x" * 60}


def test_no_new_values(realm):
    assert_bad_request(set_status(realm.member), "The request sets nothing.")
    # emoji_code or reaction_type alone are not new values either, as the reference
    assert_bad_request(set_status(realm.member, emoji_code="1f697"),
                       "The request sets nothing.")


@pytest.mark.parametrize("params, msg", [
    ({"status_text": "x", "emoji_code": "1f697"},
     "emoji_code and reaction_type need an emoji_name too."),
    ({"status_text": "x", "reaction_type": "unicode_emoji"},
     "emoji_code and reaction_type need an emoji_name too."),
    ({"emoji_name": "no_such_emoji"}, "No emoji called 'no_such_emoji' exists"),
    ({"emoji_name": "car", "emoji_code": "1f600"}, "Unknown emoji name."),
    ({"emoji_name": "car", "emoji_code": "ffffff"}, "Unknown emoji code."),
    ({"emoji_name": "car", "emoji_code": "1f697", "reaction_type": "realm_emoji"},
     "No such custom emoji."),
    ({"emoji_name": "car", "reaction_type": "bogus"}, "Unknown emoji type."),
    ({"emoji_name": "zulip", "emoji_code": "zulip", "reaction_type": "zulip_extra_emoji"},
     "Unknown emoji type."),
    ({"emoji_name": "car", "reaction_type": "service_extra_emoji"}, "Unknown emoji code."),
])
def test_inconsistent_or_invalid_emoji(realm, params, msg):
    assert_bad_request(set_status(realm.member, **params), msg)
    assert_bad_request(realm.admin.post(f"/users/{realm.member.user_id}/status", params), msg)
    assert status_of(realm.member, realm.member) == {}


def test_service_extra_emoji(realm):
    assert set_status(realm.member, emoji_name="service").ok
    assert status_of(realm.member, realm.member) == {
        "emoji_name": "service", "emoji_code": "service",
        "reaction_type": "service_extra_emoji"}


def test_custom_emoji(realm):
    emoji_id = add_custom_emoji(realm.member, "green_tick")
    # By name alone, the custom emoji is found
    assert set_status(realm.member, emoji_name="green_tick").ok
    assert status_of(realm.member, realm.member) == {
        "emoji_name": "green_tick", "emoji_code": emoji_id, "reaction_type": "realm_emoji"}
    assert_bad_request(set_status(realm.admin, emoji_name="other", emoji_code=emoji_id,
                                  reaction_type="realm_emoji"), "The name does not match that custom emoji.")
    assert_bad_request(set_status(realm.admin, emoji_name="green_tick", emoji_code="999999",
                                  reaction_type="realm_emoji"), "No such custom emoji.")
    assert realm.member.delete("/realm/emoji/green_tick").ok
    assert_bad_request(set_status(realm.admin, emoji_name="green_tick", emoji_code=emoji_id,
                                  reaction_type="realm_emoji"),
                       "That custom emoji was removed.")
    assert_bad_request(set_status(realm.admin, emoji_name="green_tick"),
                       "No emoji called 'green_tick' exists")


def test_away_sets_presence_enabled(realm, register_queue):
    assert presence_enabled(register_queue, realm.member) is True
    assert set_status(realm.member, away=True).ok
    assert presence_enabled(register_queue, realm.member) is False
    assert status_of(realm.admin, realm.member) == {"away": True}
    assert set_status(realm.member, status_text="gone").ok
    assert status_of(realm.admin, realm.member) == {"away": True, "status_text": "gone"}
    assert set_status(realm.member, away=False).ok
    assert presence_enabled(register_queue, realm.member) is True
    assert status_of(realm.admin, realm.member) == {"status_text": "gone"}
    # PATCH /settings and away are the same fact
    assert realm.member.patch("/settings", {"presence_enabled": False}).ok
    assert status_of(realm.admin, realm.member)["away"] is True


def test_away_must_be_a_boolean(realm):
    response = set_status(realm.member, away="maybe")
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST"


def test_administrator_sets_another_users_status(realm):
    path = f"/users/{realm.member.user_id}/status"
    assert realm.admin.post(path, {"status_text": "set by admin", "emoji_name": "car"}).ok
    assert realm.owner.post(path, {"emoji_name": ""}).ok
    assert status_of(realm.member, realm.member) == {"status_text": "set by admin"}
    # Same rules as for one's own status
    assert_bad_request(realm.admin.post(path, {}), "The request sets nothing.")
    assert_bad_request(realm.admin.post(path, {"status_text": "x" * 61}),
                       "status_text is over the limit of 60 characters")
    # away is not a parameter here: ignored, and so not a new value
    response = realm.admin.post(path, {"away": True})
    assert_bad_request(response, "The request sets nothing.")
    response = realm.admin.post(path, {"away": True, "status_text": "x"})
    assert response.ok and response.json["ignored_parameters_unsupported"] == ["away"]
    assert "away" not in status_of(realm.member, realm.member)


@pytest.mark.parametrize("role", ["moderator", "member", "guest"])
def test_non_administrators_may_not_set_others_status(realm, role):
    caller = getattr(realm, role)
    response = caller.post(f"/users/{realm.admin.user_id}/status", {"status_text": "hacked"})
    assert_bad_request(response, "You are not allowed to do this.")
    assert status_of(realm.admin, realm.admin) == {}


def test_unknown_or_deactivated_user(realm):
    assert_bad_request(realm.admin.post("/users/999999/status", {"status_text": "x"}),
                       "No such person in this organization.")
    assert_bad_request(realm.admin.get("/users/999999/status"), "No such person in this organization.")
    assert realm.admin.delete(f"/users/{realm.guest.user_id}").ok
    assert_bad_request(realm.admin.post(f"/users/{realm.guest.user_id}/status",
                                        {"status_text": "x"}), "No such person in this organization.")


def test_events_to_the_realm(realm, register_queue, fetch_events, drain_events):
    # GIVEN queues of two other users, one not asking for user_status
    watcher = register_queue(realm.guest, event_types=["user_status"])["queue_id"]
    uninterested = register_queue(realm.admin, event_types=["realm_emoji"])["queue_id"]
    own = register_queue(realm.member, event_types=["user_status", "user_settings"])[
        "queue_id"]
    # WHEN the member sets text and emoji, clears the emoji, and goes away
    assert set_status(realm.member, status_text="lunch", emoji_name="car").ok
    assert set_status(realm.member, emoji_name="").ok
    assert set_status(realm.member, away=True).ok
    drain_events()
    # THEN the realm sees each change with the fields that changed
    events = fetch_events(realm.guest, watcher)
    assert [{k: v for k, v in e.items() if k != "id"} for e in events] == [
        {"type": "user_status", "user_id": realm.member.user_id, "status_text": "lunch",
         "emoji_name": "car", "emoji_code": "1f697", "reaction_type": "unicode_emoji"},
        {"type": "user_status", "user_id": realm.member.user_id, "emoji_name": "",
         "emoji_code": "", "reaction_type": ""},
        {"type": "user_status", "user_id": realm.member.user_id, "away": True},
    ]
    assert fetch_events(realm.admin, uninterested) == []
    # and the member's own clients also learn the setting changed
    mine = fetch_events(realm.member, own)
    assert [e["type"] for e in mine] == ["user_status", "user_status", "user_settings",
                                         "user_status"]
    assert {k: mine[2][k] for k in ("op", "property", "value")} == {
        "op": "update", "property": "presence_enabled", "value": False}


def test_away_without_change_sends_no_settings_event(realm, register_queue, fetch_events,
                                                     drain_events):
    own = register_queue(realm.member, event_types=["user_settings", "user_status"])[
        "queue_id"]
    assert set_status(realm.member, away=False).ok      # presence already enabled
    drain_events()
    assert [e["type"] for e in fetch_events(realm.member, own)] == ["user_status"]


def test_admin_change_event(realm, register_queue, fetch_events, drain_events):
    queue = register_queue(realm.member, event_types=["user_status"])["queue_id"]
    assert realm.admin.post(f"/users/{realm.member.user_id}/status",
                            {"status_text": "by admin"}).ok
    drain_events()
    [event] = fetch_events(realm.member, queue)
    assert {k: v for k, v in event.items() if k != "id"} == {
        "type": "user_status", "user_id": realm.member.user_id, "status_text": "by admin"}


def test_registration_state(realm, register_queue):
    assert set_status(realm.member, status_text="lunch", emoji_name="car").ok
    assert set_status(realm.moderator, away=True).ok
    assert set_status(realm.guest, status_text="soon gone").ok
    assert realm.admin.delete(f"/users/{realm.guest.user_id}").ok
    assert set_status(realm.owner, status_text="cleared").ok
    assert set_status(realm.owner, status_text="").ok
    state = register_queue(realm.admin, event_types=["user_status"])
    # Only active users with something set, keyed by user id
    assert state["user_status"] == {
        str(realm.member.user_id): {"status_text": "lunch", "emoji_name": "car",
                                    "emoji_code": "1f697", "reaction_type": "unicode_emoji"},
        str(realm.moderator.user_id): {"away": True},
    }
    assert "user_status" not in register_queue(realm.admin, event_types=["realm_emoji"])


def test_status_write_is_conditional_on_what_was_read(realm, monkeypatch):
    """A concurrent change between the read and the write makes the action read again."""
    from chalicelib.actions.users import status as user_status
    from chalicelib.models.user_status import UserStatus

    assert set_status(realm.member, status_text="first", emoji_name="car").ok
    real_get = UserStatus.get_or_none
    calls = []

    def racing_get(*args, **kwargs):
        current = real_get(*args, **kwargs)
        if not calls:   # another writer changes the emoji right after our first read
            UserStatus(realm.realm_id, realm.member.user_id, status_text="first",
                       emoji_name="heart", emoji_code="2764", reaction_type="unicode_emoji",
                       timestamp=current.timestamp).save()
        calls.append(1)
        return current

    monkeypatch.setattr(user_status.UserStatus, "get_or_none", racing_get)
    assert set_status(realm.member, status_text="second").ok
    monkeypatch.undo()
    assert len(calls) == 2
    # The concurrent emoji survives: the retry merged over the fresh read
    assert status_of(realm.member, realm.member) == {
        "status_text": "second", "emoji_name": "heart", "emoji_code": "2764",
        "reaction_type": "unicode_emoji"}


def test_limited_access_keeps_statuses_from_guests(realm, register_queue, fetch_events,
                                                   drain_events):
    from chalicelib.rules.realm_settings import system_group_id

    assert realm.owner.patch("/realm", {"can_access_all_users_group": {
        "new": system_group_id("role:members")}}).ok
    guest = register_queue(realm.guest, event_types=["user_status"])["queue_id"]
    member = register_queue(realm.member, event_types=["user_status"])["queue_id"]
    assert set_status(realm.moderator, status_text="away for lunch").ok
    assert set_status(realm.guest, status_text="guesting").ok
    drain_events()
    assert [e["user_id"] for e in fetch_events(realm.guest, guest)] == [realm.guest.user_id]
    assert [e["user_id"] for e in fetch_events(realm.member, member)] == [
        realm.moderator.user_id, realm.guest.user_id]
