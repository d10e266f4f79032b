"""PATCH /users/{id} (name, role, profile data, email), DELETE /users/me, and the operations
answered as the reference answers when unconfigured (POST /dev_fetch_api_key,
GET /calls/bigbluebutton/create)."""
from __future__ import annotations

from dataclasses import replace

from chalicelib.admin import main
from chalicelib.rules.realm_settings import system_group_id


def error_of(response, code: str = "BAD_REQUEST") -> str:
    assert response.status == 400, response.json
    assert response.json["code"] == code, response.json
    return response.json["msg"]


def person(account, user_id: int) -> dict:
    response = account.get(f"/users/{user_id}", {"include_custom_profile_fields": True})
    assert response.ok, response.json
    return response.json["user"]


def test_admin_changes_name_role_and_profile_data_with_events(realm, register_queue,
                                                              fetch_events, drain_events):
    field = realm.admin.post("/realm/profile_fields", {"name": "Team", "field_type": 1,
                                                       "editable_by_user": False})
    assert field.ok, field.json
    field_id = field.json["id"]
    queue = register_queue(realm.member, event_types=["realm_user", "user_group"])["queue_id"]
    target = realm.member.user_id
    # WHEN an administrator renames the member, sets a field users may not edit, and
    # makes them a moderator
    response = realm.admin.patch(f"/users/{target}", {
        "full_name": "Maxine Member", "role": 300,
        "profile_data": [{"id": field_id, "value": "Platform"}]})
    assert response.ok, response.json
    # THEN everyone sees the changes
    shown = person(realm.guest, target)
    assert (shown["full_name"], shown["role"]) == ("Maxine Member", 300)
    assert shown["profile_data"][str(field_id)]["value"] == "Platform"
    groups = {g["name"]: g for g in realm.member.get("/user_groups").json["user_groups"]}
    assert target in groups["role:moderators"]["members"]
    assert target not in groups["role:fullmembers"]["members"]
    # AND heard of each, including the system groups the user left and joined
    drain_events()
    events = [{k: v for k, v in e.items() if k != "id"} for e in fetch_events(realm.member,
                                                                               queue)]
    assert {"type": "realm_user", "op": "update",
            "person": {"user_id": target, "full_name": "Maxine Member"}} in events
    assert {"type": "realm_user", "op": "update",
            "person": {"user_id": target, "role": 300}} in events
    assert {"type": "user_group", "op": "remove_members",
            "group_id": system_group_id("role:fullmembers"), "user_ids": [target]} in events
    assert {"type": "user_group", "op": "add_members",
            "group_id": system_group_id("role:moderators"), "user_ids": [target]} in events
    assert any(e["type"] == "realm_user" and "custom_profile_field" in e["person"]
               for e in events)
    # AND an unchanged value changes nothing
    assert realm.admin.patch(f"/users/{target}", {"role": 300}).ok


def test_role_rules(realm):
    target = realm.member.user_id
    for account in (realm.moderator, realm.member, realm.guest):
        assert error_of(account.patch(f"/users/{target}", {"role": 200})) == \
            "You are not allowed to do this."
    assert error_of(realm.admin.patch(f"/users/{target}", {"role": 250})) == "Invalid role"
    # Only owners make or unmake owners
    assert error_of(realm.admin.patch(f"/users/{target}", {"role": 100})) == \
        "Only the organization's owners can do this."
    assert error_of(realm.admin.patch(f"/users/{realm.owner.user_id}", {"role": 400})) == \
        "Only the organization's owners can do this."
    # The only owner stays one
    assert error_of(realm.owner.patch(f"/users/{realm.owner.user_id}", {"role": 200})) == \
        "The organization's only owner cannot stop being an owner."
    assert realm.owner.patch(f"/users/{realm.admin.user_id}", {"role": 100}).ok
    assert realm.admin.patch(f"/users/{realm.owner.user_id}", {"role": 400}).ok
    assert person(realm.member, realm.owner.user_id)["role"] == 400
    # Unknown users, bad names
    assert error_of(realm.admin.patch("/users/999999", {"role": 400})) == \
        "No such person in this organization."
    assert error_of(realm.admin.patch(f"/users/{target}", {"full_name": " "})) == \
        "Name cannot be empty."
    assert error_of(realm.admin.patch(f"/users/{target}", {
        "profile_data": [{"id": 999999, "value": "x"}]})) == "No custom profile field has ID 999999."
    assert person(realm.member, target)["full_name"] == "Max Member"


def test_leaving_the_organization(realm, drain_events):
    # A member leaves: their key stops working
    assert realm.member.delete("/users/me").ok
    assert realm.member.get("/users/me").status == 401
    assert person(realm.admin, realm.member.user_id)["is_active"] is False
    # The only owner cannot, while others remain
    response = realm.owner.delete("/users/me")
    assert error_of(response, "CANNOT_DEACTIVATE_LAST_USER") == \
        "The organization's only owner cannot be deactivated"
    assert (response.json["entity"], response.json["is_last_owner"]) == \
        ("organization owner", True)
    # Once everyone else left, the owner is told they are the only user
    for account in (realm.admin, realm.moderator, realm.guest):
        assert account.delete("/users/me").ok
    response = realm.owner.delete("/users/me")
    assert error_of(response, "CANNOT_DEACTIVATE_LAST_USER") == \
        "The organization's only user cannot be deactivated."
    assert (response.json["entity"], response.json["is_last_owner"]) == ("user", False)
    assert realm.owner.get("/users/me").ok


def test_unconfigured_operations_answer_as_the_reference(realm, anonymous, monkeypatch):
    host = {"Host": f"{realm.subdomain}.localhost"}
    assert error_of(anonymous("POST", "/dev_fetch_api_key", {"username": realm.member.email},
                              host)) == "This endpoint exists only on development servers."
    response = realm.member.get("/calls/bigbluebutton/create", {"meeting_name": "standup"})
    assert error_of(response) == "This server has no BigBlueButton set up."
    # On a development stack (DEV_FETCH_API_KEY=1) it issues a working key
    monkeypatch.setenv("DEV_FETCH_API_KEY", "1")
    response = anonymous("POST", "/dev_fetch_api_key", {"username": realm.member.email}, host)
    assert response.ok, response.json
    assert (response.json["email"], response.json["user_id"]) == (realm.member.email,
                                                                 realm.member.user_id)
    refused = anonymous("POST", "/dev_fetch_api_key", {"username": "nobody@x.org"}, host)
    assert refused.status == 401 and refused.json["code"] == "AUTHENTICATION_FAILED"


def grant_email_changes(realm, account, off: bool = False) -> None:
    """The operator's special permission, through the admin CLI."""
    argv = ["set-permission", "--realm", realm.subdomain, "--email", account.email,
            "--permission", "can_change_user_emails", *(["--off"] if off else [])]
    assert main(argv) == 0


def test_owner_with_the_permission_changes_a_users_email(realm, register_queue,
                                                         fetch_events, drain_events, capsys):
    target = realm.member.user_id
    new = f"max.new@{realm.subdomain}.example.com"
    queues = {account.user_id: register_queue(account, event_types=["realm_user"])["queue_id"]
              for account in (realm.guest, realm.admin, realm.member)}
    grant_email_changes(realm, realm.owner)
    capsys.readouterr()
    # WHEN the owner changes the member's email
    response = realm.owner.patch(f"/users/{target}", {"new_email": new})
    assert response.ok, response.json
    # THEN the member signs in with the new address (same key), not the old one
    moved = replace(realm.member, email=new)
    assert moved.get("/users/me").json["email"] == new
    assert realm.member.get("/users/me").status == 401
    assert person(realm.admin, target)["delivery_email"] == new
    # AND everyone hears of the real address, which is also the API address (the member's
    # address is everyone's to see; tests/functional/test_email_visibility.py hides it)
    drain_events()
    def person_events(account) -> list[dict]:
        owner = moved if account is realm.member else account
        return [e["person"] for e in fetch_events(owner, queues[account.user_id])
                if e["type"] == "realm_user" and e["op"] == "update"]
    for account in (realm.guest, realm.admin, realm.member):
        assert person_events(account)[:2] == [{"user_id": target, "delivery_email": new},
                                              {"user_id": target, "new_email": new}]
        assert person_events(account)[2]["avatar_source"] == "G"
    # AND the old address is free again, the new one taken
    assert realm.admin.post("/invites", {"invitee_emails": realm.member.email,
                                         "stream_ids": "[]"}).ok
    response = realm.owner.patch(f"/users/{realm.guest.user_id}", {"new_email": new.upper()})
    assert "belongs to another account" in error_of(response)
    # AND changing it to what it is changes nothing; a change of case goes through
    assert realm.owner.patch(f"/users/{target}", {"new_email": new}).ok
    assert realm.owner.patch(f"/users/{target}", {"new_email": new.capitalize()}).ok
    assert person(realm.admin, target)["delivery_email"] == new.capitalize()


NOT_ALLOWED = ("Changing users' email addresses needs the organization owner role and the "
               "special permission to change emails.")


def test_email_change_refusals(realm, capsys):
    target = realm.member.user_id
    new = f"someone@{realm.subdomain}.example.com"
    # Without the special permission, not even the owner may
    for account in (realm.owner, realm.admin):
        assert error_of(account.patch(f"/users/{target}", {"new_email": new})) == NOT_ALLOWED
    # With it, only as an owner
    grant_email_changes(realm, realm.admin)
    assert error_of(realm.admin.patch(f"/users/{target}", {"new_email": new})) == NOT_ALLOWED
    # Members are refused as for any other change
    assert error_of(realm.member.patch(f"/users/{target}", {"new_email": new})) == \
        "You are not allowed to do this."
    grant_email_changes(realm, realm.owner)
    for bad in ("not-an-email", "two@@x.org", ""):
        assert error_of(realm.owner.patch(f"/users/{target}", {"new_email": bad})) == \
            "The new email address is not valid."
    response = realm.owner.patch(f"/users/{target}", {"new_email": realm.admin.email})
    assert "belongs to another account" in error_of(response)
    assert error_of(realm.owner.patch("/users/999999", {"new_email": new})) == \
        "No such person in this organization."
    # A refused change leaves the rest of the request undone too
    response = realm.owner.patch(f"/users/{target}", {"full_name": "Renamed",
                                                      "new_email": "bad"})
    assert response.status == 400
    assert person(realm.admin, target)["full_name"] == "Max Member"
    # And once the operator takes the permission back, it is refused again
    grant_email_changes(realm, realm.owner, off=True)
    assert error_of(realm.owner.patch(f"/users/{target}", {"new_email": new})) == NOT_ALLOWED
    capsys.readouterr()
