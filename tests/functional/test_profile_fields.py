"""Custom profile fields: definitions, the caller's values, their events and state."""
from __future__ import annotations

import itertools
import json
import threading
import types

import pytest

from chalicelib.actions.users.profile_data import do_update_profile_data
from chalicelib.core.principal import Principal

_other_numbers = itertools.count(1)
CHOICES = {"vim": {"text": "Vim", "order": "1"}, "emacs": {"text": "Emacs", "order": "2"}}


def create_field(account, name, field_type, **params):
    return account.post("/realm/profile_fields", {"name": name, "field_type": field_type,
                                                  **params})


def field_id(account, name, field_type, **params):
    response = create_field(account, name, field_type, **params)
    assert response.ok, response.json
    return response.json["id"]


def set_values(account, *pairs):
    return account.patch("/users/me/profile_data",
                         {"data": [{"id": i, "value": v} for i, v in pairs]})


def custom_fields(account):
    response = account.get("/realm/profile_fields")
    assert response.ok, response.json
    return response.json["custom_fields"]


def profile(account):
    return account.get("/users/me").json["profile_data"]


def error(response):
    assert response.status == 400, response.json
    assert response.json["result"] == "error" and response.json["code"] == "BAD_REQUEST"
    return response.json["msg"]


@pytest.fixture
def other_realm(chalice_client):
    """A second organization with an administrator and a member."""
    from chalicelib.actions.users.users import NewUser, do_create_user
    from chalicelib.actions.workflows.realms import do_create_realm
    from tests.functional.conftest import Account

    tag = next(_other_numbers)
    domain = f"pf{tag}.example.com"
    created, _, _ = do_create_realm(f"Other org {tag}", f"pf{tag}", NewUser(
        email=f"owner@{domain}", full_name="Other Owner", role=100))
    accounts = {}
    for label, role in (("admin", 200), ("member", 400)):
        user, key = do_create_user(created.realm_id, NewUser(
            email=f"{label}@{domain}", full_name=f"Other {label}", role=role))
        accounts[label] = Account(chalice_client, created.realm_id, user.user_id,
                                  f"{label}@{domain}", key, f"Other {label}", role)
    return types.SimpleNamespace(**accounts)


def principal(account, is_bot=False) -> Principal:
    return Principal(account.realm_id, account.user_id, account.email, account.role, is_bot)


# Definitions ----------------------------------------------------------------------------

def test_create_list_and_delete_with_events_and_state(realm, register_queue, fetch_events,
                                                      drain_events):
    # GIVEN a member's queue for the field list
    queue = register_queue(realm.member, event_types=["custom_profile_fields"])
    assert queue["custom_profile_fields"] == []
    # WHEN an administrator creates two fields
    phone = field_id(realm.admin, " Phone ", 1, hint="Work phone", required=True)
    editor = field_id(realm.owner, "Editor", 3, field_data=CHOICES,
                      display_in_profile_summary=True, editable_by_user=False)
    drain_events()
    # THEN every member of the realm gets the full list after each change
    first, second = fetch_events(realm.member, queue["queue_id"])
    phone_dict = {"id": phone, "name": "Phone", "type": 1, "hint": "Work phone",
                  "order": phone, "field_data": "", "required": True,
                  "editable_by_user": True, "use_for_user_matching": False}
    editor_dict = {"id": editor, "name": "Editor", "type": 3, "hint": "", "order": editor,
                   "field_data": json.dumps(CHOICES), "display_in_profile_summary": True,
                   "required": False, "editable_by_user": False,
                   "use_for_user_matching": False}
    assert first["type"] == second["type"] == "custom_profile_fields"
    assert first["fields"] == [phone_dict]
    assert second["fields"] == [phone_dict, editor_dict]
    assert json.loads(second["fields"][1]["field_data"]) == CHOICES
    # AND any user, guests included, can list them; registration shows them and the types
    assert custom_fields(realm.guest) == [phone_dict, editor_dict]
    state = register_queue(realm.member, event_types=["custom_profile_fields"])
    assert state["custom_profile_fields"] == [phone_dict, editor_dict]
    types = state["custom_profile_field_types"]
    assert {v["id"] for v in types.values()} == set(range(1, 9))
    assert types["LONG_TEXT"]["id"] == 2 and types["PRONOUNS"]["id"] == 8
    # WHEN the administrator deletes one
    assert realm.admin.delete(f"/realm/profile_fields/{phone}").ok
    drain_events()
    # THEN the realm gets the remaining list, and the field is gone
    [after] = fetch_events(realm.member, queue["queue_id"], second["id"])
    assert after["fields"] == [editor_dict]
    assert custom_fields(realm.member) == [editor_dict]
    # AND its name is free again (ids are never reused)
    again = field_id(realm.admin, "phone", 1)
    assert again > editor


def test_registration_without_the_type_has_no_fields(realm, register_queue):
    field_id(realm.admin, "Phone", 1)
    state = register_queue(realm.member, event_types=["alert_words"])
    assert "custom_profile_fields" not in state and "custom_profile_field_types" not in state


@pytest.mark.parametrize("account", ["moderator", "member", "guest"])
def test_only_administrators_create_and_delete(realm, account):
    caller = getattr(realm, account)
    assert error(create_field(caller, "Phone", 1)) == "Only the organization's administrators can do this."
    existing = field_id(realm.admin, "Phone", 1)
    assert error(caller.delete(f"/realm/profile_fields/{existing}")) == (
        "Only the organization's administrators can do this.")
    assert [f["id"] for f in custom_fields(caller)] == [existing]


def test_names_are_unique_per_realm_ignoring_case(realm):
    field_id(realm.admin, "Phone", 1)
    assert error(create_field(realm.admin, "PHONE ", 2)) == (
        "Another field already has that name.")
    assert [f["name"] for f in custom_fields(realm.admin)] == ["Phone"]


def test_same_name_in_another_realm_is_fine(realm, other_realm):
    other = other_realm
    field_id(realm.admin, "Phone", 1)
    assert create_field(other.admin, "Phone", 1).ok
    assert len(custom_fields(other.member)) == 1 and len(custom_fields(realm.member)) == 1


@pytest.mark.parametrize("params, message", [
    ({"name": "", "field_type": 1}, "A field needs a name."),
    ({"name": "   ", "field_type": 1}, "A field needs a name."),
    ({"name": "x" * 41, "field_type": 1}, "name is over the limit of 40 characters"),
    ({"name": "Ok", "hint": "h" * 81, "field_type": 1},
     "hint is over the limit of 80 characters"),
    ({"name": "Ok", "field_type": 9}, "Unknown custom profile field type."),
    ({"name": "Ok", "field_type": 0}, "Unknown custom profile field type."),
    ({"name": "Ok", "field_type": 3}, "A list field needs one choice or more."),
    ({"name": "Ok", "field_type": 3, "field_data": {}}, "A list field needs one choice or more."),
    ({"name": "Ok", "field_type": 3, "field_data": {" ": {"text": "A", "order": "1"}}},
     "A choice's key must not be empty."),
    ({"name": "Ok", "field_type": 3, "field_data": {"a": {"text": "", "order": "1"}}},
     'field_data["a"]["text"] must not be empty.'),
    ({"name": "Ok", "field_type": 3, "field_data": {"a": {"text": "A"}}},
     "field_data[\"a\"] must have exactly 'text' and 'order'"),
    ({"name": "Ok", "field_type": 3, "field_data": {"a": "A"}},
     "field_data[\"a\"] must have exactly 'text' and 'order'"),
    ({"name": "Ok", "field_type": 3, "field_data": {"a": {"text": "A", "order": "1"},
                                                     "b": {"text": "a", "order": "2"}}},
     "Each choice of the field must be different."),
    ({"name": "Ok", "field_type": 7}, "Unknown external account type"),
    ({"name": "Ok", "field_type": 7, "field_data": {"subtype": "myspace"}},
     "Unknown external account type"),
    ({"name": "Ok", "field_type": 7, "field_data": {"subtype": ["github"]}},
     "Unknown external account type"),
    ({"name": "Ok", "field_type": 7, "field_data": {"subtype": "custom"}},
     "A custom external account needs a URL pattern"),
    ({"name": "Ok", "field_type": 7,
      "field_data": {"subtype": "custom", "url_pattern": "https://x.example/u"}},
     "The URL pattern has to include '%(username)s'."),
    ({"name": "Ok", "field_type": 7,
      "field_data": {"subtype": "custom", "url_pattern": "ftp://x.example/%(username)s"}},
     "URL pattern must be a URL"),
    ({"name": "Ok", "field_type": 7,
      "field_data": {"subtype": "custom", "url_pattern": "https://[x/%(username)s"}},
     "URL pattern must be a URL"),
    ({"name": "Ok", "field_type": 7,
      "field_data": {"subtype": "github", "url_pattern": "https://x/%(username)s"}},
     "URL pattern is only for custom external accounts"),
    ({"name": "Ok", "field_type": 6, "display_in_profile_summary": True},
     "Fields of this type cannot be shown in the profile summary."),
])
def test_invalid_definitions(realm, params, message):
    response = realm.admin.post("/realm/profile_fields", params)
    assert error(response) == message
    assert custom_fields(realm.admin) == []


def test_field_type_is_required_and_typed(realm):
    response = realm.admin.post("/realm/profile_fields", {"name": "Phone"})
    assert response.json["code"] == "REQUEST_VARIABLE_MISSING"
    assert realm.admin.post("/realm/profile_fields",
                            {"name": "Phone", "field_type": "text"}).status == 400
    assert realm.admin.post("/realm/profile_fields",
                            {"name": "Phone", "field_type": 1, "field_data": "[1"}
                            ).status == 400


def test_at_most_two_fields_in_the_summary(realm):
    field_id(realm.admin, "A", 1, display_in_profile_summary=True)
    field_id(realm.admin, "B", 5, display_in_profile_summary=True)
    assert error(create_field(realm.admin, "C", 8, display_in_profile_summary=True)) == (
        "Only 2 custom profile fields can be displayed in the profile summary.")
    assert create_field(realm.admin, "C", 8).ok   # not in the summary: fine


def test_external_accounts(realm):
    github = field_id(realm.admin, "", 7, field_data={"subtype": "github"})
    custom = field_id(realm.admin, "Blog", 7, hint="Your handle", field_data={
        "subtype": "custom", "url_pattern": "https://blog.example/%(username)s"})
    fields = {f["id"]: f for f in custom_fields(realm.member)}
    # a known site names and explains itself
    assert fields[github]["name"] == "GitHub"
    assert fields[github]["hint"] == "Enter your GitHub username"
    assert json.loads(fields[github]["field_data"]) == {"subtype": "github"}
    assert json.loads(fields[custom]["field_data"]) == {
        "subtype": "custom", "url_pattern": "https://blog.example/%(username)s"}
    assert (fields[custom]["name"], fields[custom]["hint"]) == ("Blog", "Your handle")


def test_field_data_of_other_types_is_not_kept(realm):
    field_id(realm.admin, "Phone", 1, field_data={"a": 1})
    assert custom_fields(realm.admin)[0]["field_data"] == ""


def test_delete_unknown_field(realm):
    assert error(realm.admin.delete("/realm/profile_fields/999999")) == (
        "No custom profile field has ID 999999.")
    existing = field_id(realm.admin, "Phone", 1)
    assert realm.admin.delete(f"/realm/profile_fields/{existing}").ok
    assert error(realm.admin.delete(f"/realm/profile_fields/{existing}")) == (
        f"No custom profile field has ID {existing}.")


def test_fields_of_another_realm_are_invisible(realm, other_realm):
    other = other_realm
    foreign = field_id(other.admin, "Phone", 1)
    assert error(realm.admin.delete(f"/realm/profile_fields/{foreign}")) == (
        f"No custom profile field has ID {foreign}.")
    assert error(set_values(realm.member, (foreign, "123"))) == (
        f"No custom profile field has ID {foreign}.")
    assert custom_fields(other.member)[0]["id"] == foreign


def test_deleting_a_field_drops_its_values(realm):
    phone = field_id(realm.admin, "Phone", 1)
    food = field_id(realm.admin, "Food", 1)
    assert set_values(realm.member, (phone, "123"), (food, "pie")).ok
    assert set_values(realm.admin, (phone, "456")).ok
    assert realm.admin.delete(f"/realm/profile_fields/{phone}").ok
    assert set(profile(realm.member)) == {str(food)}
    assert profile(realm.admin) == {}


# Values ---------------------------------------------------------------------------------

def test_set_values_with_events_and_record(realm, register_queue, fetch_events, drain_events):
    # GIVEN fields of every type and another user's queue for user events
    ids = {
        "short": field_id(realm.admin, "Phone", 1),
        "long": field_id(realm.admin, "Bio", 2),
        "select": field_id(realm.admin, "Editor", 3, field_data=CHOICES),
        "date": field_id(realm.admin, "Birthday", 4),
        "url": field_id(realm.admin, "Site", 5),
        "user": field_id(realm.admin, "Mentor", 6),
        "external": field_id(realm.admin, "", 7, field_data={"subtype": "github"}),
        "pronouns": field_id(realm.admin, "Pronouns", 8),
    }
    queue = register_queue(realm.admin, event_types=["realm_user"])["queue_id"]
    values = {"short": "+1 *555*", "long": "I am:\n* a member", "select": "vim",
              "date": "2000-02-29", "url": "https://blog.example/me",
              "user": [realm.owner.user_id, realm.admin.user_id], "external": "maxm",
              "pronouns": "they/them"}
    # WHEN the member sets them all
    response = set_values(realm.member, *((ids[k], v) for k, v in values.items()))
    assert response.ok, response.json
    drain_events()
    # THEN the realm gets one realm_user update per field, Markdown types rendered
    events = fetch_events(realm.admin, queue)
    assert all(e["type"] == "realm_user" and e["op"] == "update" for e in events)
    assert all(set(e["person"]) == {"user_id", "custom_profile_field"} for e in events)
    assert all(e["person"]["user_id"] == realm.member.user_id for e in events)
    changed = {e["person"]["custom_profile_field"]["id"]: e["person"]["custom_profile_field"]
               for e in events}
    assert len(events) == len(changed) == 8
    mentor_text = json.dumps([realm.owner.user_id, realm.admin.user_id])
    assert changed[ids["short"]] == {"id": ids["short"], "value": "+1 *555*",
                                     "rendered_value": "<p>+1 <em>555</em></p>"}
    assert changed[ids["long"]]["rendered_value"] == (
        "<p>I am:</p>\n<ul>\n<li>a member</li>\n</ul>")
    assert changed[ids["user"]] == {"id": ids["user"], "value": mentor_text}
    for kind in ("select", "date", "url", "external", "pronouns"):
        assert changed[ids[kind]] == {"id": ids[kind], "value": values[kind]}
    # AND GET /users/me shows the same values
    record = profile(realm.member)
    assert record == {str(i): {k: v for k, v in c.items() if k != "id"}
                      for i, c in changed.items()}
    # AND registration's user list carries them too
    state = register_queue(realm.admin, event_types=["realm_user"])
    [member] = [u for u in state["realm_users"] if u["user_id"] == realm.member.user_id]
    assert member["profile_data"] == record


def test_unchanged_values_write_nothing(realm, register_queue, fetch_events, drain_events):
    phone = field_id(realm.admin, "Phone", 1)
    food = field_id(realm.admin, "Food", 1)
    assert set_values(realm.member, (phone, "123")).ok
    drain_events()   # earlier events are delivered before the queue exists
    queue = register_queue(realm.admin, event_types=["realm_user"])["queue_id"]
    # WHEN one value is sent again unchanged, and another changes
    assert set_values(realm.member, (phone, "123"), (food, "pie")).ok
    # AND then nothing changes at all (a quiet success)
    assert set_values(realm.member, (phone, "123"), (food, "pie")).ok
    drain_events()
    [event] = fetch_events(realm.admin, queue)
    assert event["person"]["custom_profile_field"]["id"] == food


@pytest.mark.parametrize("empty", ["", None, []])
def test_empty_value_clears(realm, register_queue, fetch_events, drain_events, empty):
    mentor = field_id(realm.admin, "Mentor", 6)
    bio = field_id(realm.admin, "Bio", 2)
    assert set_values(realm.member, (mentor, [realm.owner.user_id]), (bio, "hi")).ok
    drain_events()
    queue = register_queue(realm.admin, event_types=["realm_user"])["queue_id"]
    assert set_values(realm.member, (bio, empty)).ok
    drain_events()
    [event] = fetch_events(realm.admin, queue)
    # a cleared value is null, without rendered_value
    assert event["person"]["custom_profile_field"] == {"id": bio, "value": None}
    assert set(profile(realm.member)) == {str(mentor)}
    # clearing what is not set is a quiet success
    assert set_values(realm.member, (bio, "")).ok
    drain_events()
    assert fetch_events(realm.admin, queue, event["id"]) == []


def test_user_values_accept_json_text(realm):
    mentor = field_id(realm.admin, "Mentor", 6)
    assert set_values(realm.member, (mentor, json.dumps([realm.owner.user_id]))).ok
    assert profile(realm.member)[str(mentor)] == {"value": json.dumps([realm.owner.user_id])}


@pytest.mark.parametrize("kind, field_type, value, message", [
    ("short", 1, "x" * 51, "F is over the limit of 50 characters"),
    ("short", 1, 5, 'data[0]["value"] is not an allowed value'),
    ("user", 6, [True], 'data[0]["value"] is not an allowed value'),
    ("long", 2, "x" * 501, "F is over the limit of 500 characters"),
    ("pronouns", 8, "x" * 51, "F is over the limit of 50 characters"),
    ("external", 7, "x" * 51, "F is over the limit of 50 characters"),
    ("select", 3, "nano", "'nano' is not one of the choices of 'F'."),
    ("select", 3, "Vim", "'Vim' is not one of the choices of 'F'."),
    ("date", 4, "2001-02-29", "F must be a date (YYYY-MM-DD)"),
    ("date", 4, "01/02/2003", "F must be a date (YYYY-MM-DD)"),
    ("date", 4, "2003-1-2", "F must be a date (YYYY-MM-DD)"),
    ("url", 5, "blog.example", "F must be a URL"),
    ("url", 5, "javascript:alert(1)", "F must be a URL"),
    ("url", 5, "ftp://files.example/", "F must be a URL"),
    ("url", 5, "http://[::1", "F must be a URL"),
    ("url", 5, "https://a.example/" + "x" * 2048, "F is over the limit of 2048 characters"),
    ("user", 6, "not json", "F must be a list"),
    ("user", 6, "[1.5]", "F must be a list of user IDs"),
    ("user", 6, "{}", "F must be a list of user IDs"),
    ("user", 6, [999999], "No user with ID 999999 exists"),
])
def test_invalid_values(realm, kind, field_type, value, message):
    extra = {"field_data": CHOICES} if field_type == 3 else {}
    if field_type == 7:
        extra = {"field_data": {"subtype": "github"}}
    target = field_id(realm.admin, "F", field_type, **extra)
    assert error(set_values(realm.member, (target, value))) == message
    assert profile(realm.member) == {}


def test_person_values_must_be_active_humans(realm):
    mentor = field_id(realm.admin, "Mentor", 6)
    bot = realm.add_user("Helper Bot", is_bot=True)
    assert error(set_values(realm.member, (mentor, [bot.user_id]))) == (
        f"User {bot.user_id} is a bot")
    gone = realm.add_user("Gone Person")
    assert realm.admin.delete(f"/users/{gone.user_id}").ok
    assert error(set_values(realm.member, (mentor, [gone.user_id]))) == (
        f"User {gone.user_id} is deactivated")
    assert profile(realm.member) == {}


def test_one_bad_value_rejects_the_whole_request(realm):
    phone = field_id(realm.admin, "Phone", 1)
    birthday = field_id(realm.admin, "Birthday", 4)
    assert error(set_values(realm.member, (phone, "123"), (birthday, "soon"))) == (
        "Birthday must be a date (YYYY-MM-DD)")
    assert profile(realm.member) == {}


@pytest.mark.parametrize("data, message", [
    ([], "No profile data given"),
    ([{"id": 999999, "value": "x"}], "No custom profile field has ID 999999."),
    ([{"value": "x"}], 'data[0] is missing key \'id\''),
    ([{"id": "x", "value": "x"}], 'data[0]["id"] must be an integer'),
])
def test_malformed_data(realm, data, message):
    field_id(realm.admin, "Phone", 1)
    assert error(realm.member.patch("/users/me/profile_data", {"data": data})) == message


def test_data_is_required(realm):
    response = realm.member.patch("/users/me/profile_data", {})
    assert response.json["code"] == "REQUEST_VARIABLE_MISSING"


def test_a_field_only_once_per_request(realm):
    phone = field_id(realm.admin, "Phone", 1)
    assert error(set_values(realm.member, (phone, "1"), (phone, "2"))) == (
        "Each field may be named only once")


def test_fields_not_editable_by_users(realm):
    badge = field_id(realm.admin, "Badge", 1, editable_by_user=False)
    assert error(set_values(realm.member, (badge, "B-1"))) == (
        "Only administrators can change this field; ask one of them to update it.")
    assert profile(realm.member) == {}
    assert set_values(realm.admin, (badge, "B-2")).ok   # administrators always may
    assert profile(realm.admin)[str(badge)]["value"] == "B-2"


def test_bots_have_no_profile_data(realm):
    phone = field_id(realm.admin, "Phone", 1)
    bot = realm.add_user("Helper Bot", is_bot=True)
    with pytest.raises(Exception) as raised:
        do_update_profile_data(principal(bot, is_bot=True), [{"id": phone, "value": "1"}])
    assert str(raised.value) == "Bots cannot have custom profile fields"
    assert "profile_data" not in bot.get("/users/me").json


def test_concurrent_changes_to_different_fields_both_stick(realm, monkeypatch):
    # GIVEN two requests that both read the profile before either writes
    from chalicelib.actions.users import profile_data as actions
    phone = field_id(realm.admin, "Phone", 1)
    food = field_id(realm.admin, "Food", 1)
    barrier = threading.Barrier(2, timeout=10)
    real_transaction = actions.transaction

    def transaction_after_both_read():
        barrier.wait()
        return real_transaction()

    monkeypatch.setattr(actions, "transaction", transaction_after_both_read)
    caller = principal(realm.member)
    errors = []

    def update(target, value):
        try:
            do_update_profile_data(caller, [{"id": target, "value": value}])
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=update, args=(phone, "123")),
               threading.Thread(target=update, args=(food, "pie"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN both values are kept
    assert errors == []
    assert {k: v["value"] for k, v in profile(realm.member).items()} == {
        str(phone): "123", str(food): "pie"}


def test_concurrent_change_of_the_same_field_rereads(realm, monkeypatch):
    # GIVEN a value changed by someone else between the read and the write
    from chalicelib.actions.users import profile_data as actions
    from chalicelib.models.users import User
    phone = field_id(realm.admin, "Phone", 1)
    assert set_values(realm.member, (phone, "1")).ok
    real_transaction = actions.transaction
    sneaked = []

    def transaction_after_a_sneaky_write():
        if not sneaked:
            sneaked.append(True)
            user = User.get(realm.member.realm_id, realm.member.user_id)
            user.update(actions=[User.profile_data[str(phone)].set(
                {"value": "2", "rendered_value": "<p>2</p>"})])
        return real_transaction()

    monkeypatch.setattr(actions, "transaction", transaction_after_a_sneaky_write)
    # WHEN the member clears it
    do_update_profile_data(principal(realm.member), [{"id": phone, "value": None}])
    # THEN the conditional write failed once, was retried on fresh data, and cleared it
    assert sneaked == [True]
    assert profile(realm.member) == {}


def test_limited_access_keeps_values_from_guests(realm, register_queue, fetch_events,
                                                 drain_events):
    from chalicelib.rules.realm_settings import system_group_id

    phone = field_id(realm.admin, "Phone", 1)
    assert realm.owner.patch("/realm", {"can_access_all_users_group": {
        "new": system_group_id("role:members")}}).ok
    guest = register_queue(realm.guest, event_types=["realm_user"])["queue_id"]
    member = register_queue(realm.member, event_types=["realm_user"])["queue_id"]
    assert set_values(realm.moderator, (phone, "123")).ok
    drain_events()
    assert fetch_events(realm.guest, guest) == []
    assert [e["person"]["custom_profile_field"]["value"]
            for e in fetch_events(realm.member, member)] == ["123"]


def test_reorder_fields_with_event(realm, register_queue, fetch_events, drain_events):
    first = field_id(realm.admin, "Team", 1)
    second = field_id(realm.admin, "Phone", 1)
    third = field_id(realm.admin, "Office", 1)
    drain_events()   # the creations' events reach no queue registered after them
    queue = register_queue(realm.member, event_types=["custom_profile_fields"])["queue_id"]
    # WHEN an administrator puts them in a new order
    assert realm.admin.patch("/realm/profile_fields",
                             {"order": [third, first, second]}).ok
    # THEN they are listed in it, and the realm heard the new list
    assert [f["id"] for f in custom_fields(realm.member)] == [third, first, second]
    drain_events()
    [event] = fetch_events(realm.member, queue)
    assert event["type"] == "custom_profile_fields"
    assert [(f["id"], f["order"]) for f in event["fields"]] == [(third, 0), (first, 1),
                                                               (second, 2)]
    # AND an order that is not exactly the fields, or from a non-administrator, is refused
    for order in ([third, first], [third, first, second, 999999], [first, first, second]):
        assert error(realm.admin.patch("/realm/profile_fields", {"order": order})) == \
            "The order must list every existing item exactly once."
    assert error(realm.member.patch("/realm/profile_fields",
                                    {"order": [first, second, third]})) == \
        "Only the organization's administrators can do this."
    assert [f["id"] for f in custom_fields(realm.member)] == [third, first, second]


def test_paragraph_fields_may_be_in_the_summary_from_level_476(realm, advertise):
    paragraph = {"name": "About", "field_type": 2, "display_in_profile_summary": True}
    advertise(475)
    assert error(realm.admin.post("/realm/profile_fields", paragraph)) == \
        "Fields of this type cannot be shown in the profile summary."
    advertise(476)
    assert realm.admin.post("/realm/profile_fields", paragraph).ok
    assert [(f["name"], f.get("display_in_profile_summary")) for f in
            custom_fields(realm.admin)] == [("About", True)]
    # People still cannot be shown there
    assert error(realm.admin.post("/realm/profile_fields", {
        "name": "Mentor", "field_type": 6, "display_in_profile_summary": True})) == \
        "Fields of this type cannot be shown in the profile summary."


def test_fields_say_whether_typeahead_matches_users_by_them_from_level_455(
        realm, register_queue, fetch_events, drain_events, advertise):
    # GIVEN a server below level 455: the key is not shown
    advertise(454)
    before = realm.admin.post("/realm/profile_fields", {"name": "Team", "field_type": 1})
    assert before.ok, before.json
    listed = realm.member.get("/realm/profile_fields").json["custom_fields"]
    assert all("use_for_user_matching" not in field for field in listed)
    # WHEN it advertises 455
    advertise(455)
    drain_events()
    queue_id = register_queue(realm.member, event_types=["custom_profile_fields"])["queue_id"]
    created = realm.admin.post("/realm/profile_fields", {
        "name": "Badge", "field_type": 1, "use_for_user_matching": "true"})
    assert created.ok, created.json
    # THEN every field says it, false by default, in the list, the state and the event
    by_name = {f["name"]: f["use_for_user_matching"]
               for f in realm.member.get("/realm/profile_fields").json["custom_fields"]}
    assert by_name == {"Team": False, "Badge": True}
    drain_events()
    [event] = [e for e in fetch_events(realm.member, queue_id)
               if e["type"] == "custom_profile_fields"]
    assert {f["name"]: f["use_for_user_matching"] for f in event["fields"]} == by_name
    state = register_queue(realm.member, event_types=["custom_profile_fields"])
    assert {f["name"]: f["use_for_user_matching"]
            for f in state["custom_profile_fields"]} == by_name
