"""GET /users, GET /users/{id}, POST /users."""
from __future__ import annotations


def test_list_users(realm):
    body = realm.member.get("/users").json
    emails = {m["email"] for m in body["members"]}
    assert {realm.owner.email, realm.guest.email} <= emails
    owner = next(m for m in body["members"] if m["user_id"] == realm.owner.user_id)
    assert owner["is_owner"] and owner["role"] == 100 and "delivery_email" in owner


def test_get_one_user(realm):
    body = realm.member.get(f"/users/{realm.admin.user_id}").json
    assert body["user"]["full_name"] == "Adam Admin" and body["user"]["is_admin"]
    assert realm.member.get("/users/999999").json["msg"] == "No such person in this organization."


def test_administrators_create_users(realm, anonymous):
    created = realm.admin.post("/users", {"email": "new@example.com", "full_name": "New Person",
                                          "password": "correct horse"})
    assert created.ok, created.json
    listed = {m["user_id"] for m in realm.admin.get("/users").json["members"]}
    assert created.json["user_id"] in listed
    assert realm.member.post("/users", {"email": "x@example.com", "full_name": "X"}).json[
        "msg"] == "Only the organization's administrators can do this."
    duplicate = realm.admin.post("/users", {"email": "new@example.com", "full_name": "Again"})
    assert duplicate.status == 400 and "belongs to another account" in duplicate.json["msg"]
    bad = realm.admin.post("/users", {"email": "not-an-email", "full_name": "Bad"})
    assert bad.status == 400 and "Invalid email" in bad.json["msg"]
    too_long = realm.admin.post("/users", {"email": "a" * 1100 + "@example.com",
                                           "full_name": "Long"})
    assert too_long.status == 400 and "longer than 254 bytes" in too_long.json["msg"]
    missing = realm.admin.post("/users", {"email": "y@example.com"})
    assert missing.json["code"] == "REQUEST_VARIABLE_MISSING"
