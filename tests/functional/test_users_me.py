"""GET /users/me, GET /server_settings and the authentication rules."""
from __future__ import annotations

import base64


def test_own_user_record_has_every_field(realm):
    # WHEN
    response = realm.member.get("/users/me")
    # THEN
    assert response.ok, response.json
    body = response.json
    for field in ("user_id", "email", "delivery_email", "full_name", "avatar_url",
                  "avatar_version", "role", "is_admin", "is_owner", "is_guest", "is_bot",
                  "is_active", "timezone", "date_joined", "max_message_id", "profile_data"):
        assert field in body, field
    assert body["user_id"] == realm.member.user_id
    assert body["role"] == 400 and not body["is_admin"] and not body["is_owner"]


def test_owner_flags(realm):
    body = realm.owner.get("/users/me").json
    assert body["is_owner"] and body["is_admin"] and body["role"] == 100


def test_missing_credentials_are_401_with_challenge(anonymous):
    response = anonymous("GET", "/users/me")
    assert response.status == 401
    assert response.json["result"] == "error" and response.json["code"] == "UNAUTHORIZED"
    assert "Basic" in response.headers.get("WWW-Authenticate", "")


def test_a_scripts_401_carries_no_basic_challenge(realm, anonymous):
    # GIVEN requests a browser page's script makes (marked X-Requested-With)
    script = {"X-Requested-With": "XMLHttpRequest"}
    token = base64.b64encode(f"{realm.member.email}:{'x' * 32}".encode()).decode()
    for headers in (script, {**script, "Authorization": f"Basic {token}"}):
        # WHEN they are refused
        response = anonymous("GET", "/users/me", headers=headers)
        # THEN the answer is the same 401, but its challenge is not Basic, which would
        # make the browser open its own login dialog over the page
        assert response.status == 401 and response.json["code"] == "UNAUTHORIZED"
        assert response.headers["WWW-Authenticate"] == 'Session realm="teamchat"'


def test_wrong_api_key_is_401(realm, anonymous):
    token = base64.b64encode(f"{realm.member.email}:wrongkey".encode()).decode()
    response = anonymous("GET", "/users/me", headers={"Authorization": f"Basic {token}"})
    assert response.status == 401 and response.json["code"] == "UNAUTHORIZED"


def test_key_of_another_email_is_401(realm, anonymous):
    token = base64.b64encode(f"{realm.owner.email}:{realm.member.api_key}".encode()).decode()
    response = anonymous("GET", "/users/me", headers={"Authorization": f"Basic {token}"})
    assert response.status == 401


def test_server_settings_without_auth(anonymous):
    response = anonymous("GET", "/server_settings")
    assert response.ok
    assert isinstance(response.json["service_feature_level"], int)
    assert "service_version" in response.json and "service_merge_base" in response.json
    assert "realm_name" not in response.json


def test_server_settings_realm_from_host(realm, anonymous):
    response = anonymous("GET", "/server_settings",
                         headers={"Host": f"{realm.subdomain}.localhost:8000"})
    assert response.ok
    assert response.json["realm_name"].startswith("Test org")
    assert response.json["realm_url"] == f"https://{realm.subdomain}.localhost:8000"


def test_unsupported_parameters_are_listed(realm):
    response = realm.member.get("/users/me", {"bogus": "1"})
    assert response.ok and response.json["ignored_parameters_unsupported"] == ["bogus"]


def test_wrong_method_is_405_in_envelope(realm):
    # As the reference answers a method the path does not serve (test_routing.py).
    response = realm.member.call("DELETE", "/server_settings")
    assert response.status == 405
    assert response.json["allowed_methods"] == ["GET"]


def test_server_settings_unknown_subdomain_is_refused(anonymous):
    # WHEN the Host names a subdomain no organization has
    response = anonymous("GET", "/server_settings", headers={"Host": "nosuchorg.localhost:8000"})
    # THEN an error, as the reference; the root domain still answers
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST"
    assert anonymous("GET", "/server_settings", headers={"Host": "localhost:8000"}).ok


OWN_RECORD_FIELDS = {"user_id", "email", "delivery_email", "full_name", "avatar_url",
                     "avatar_version", "role", "is_admin", "is_owner", "is_guest", "is_bot",
                     "is_active", "timezone", "date_joined", "max_message_id",
                     "is_imported_stub"}   # level 433


def test_own_user_record_is_exactly_the_reference_shape(realm):
    # WHEN
    body = realm.member.get("/users/me").json
    # THEN the envelope plus §2.4's fields, nothing more
    assert set(body) == OWN_RECORD_FIELDS | {"profile_data", "result", "msg"}
    assert body["email"] == body["delivery_email"] == realm.member.email
    assert body["full_name"] == "Max Member"
    assert body["is_active"] is True and body["is_bot"] is False and body["is_guest"] is False
    assert isinstance(body["avatar_url"], str) and body["avatar_url"]
    assert isinstance(body["avatar_version"], int) and isinstance(body["timezone"], str)
    from datetime import datetime
    joined = datetime.fromisoformat(body["date_joined"])
    assert joined.tzinfo is not None and joined.year >= 2024
    assert body["profile_data"] == {}


def test_role_flags_of_admin_and_guest(realm):
    admin = realm.admin.get("/users/me").json
    assert (admin["role"], admin["is_admin"], admin["is_owner"]) == (200, True, False)
    guest = realm.guest.get("/users/me").json
    assert (guest["role"], guest["is_guest"], guest["is_admin"]) == (600, True, False)


def test_max_message_id_is_the_realms_message_counter(realm):
    from tests.functional.edit_helpers import channel, send

    assert realm.member.get("/users/me").json["max_message_id"] == -1
    channel(realm.owner, "talk", [realm.member])
    send(realm.owner, "talk", "hi")
    last = send(realm.owner, "talk", "hi again")
    assert realm.member.get("/users/me").json["max_message_id"] == last


def test_bots_have_no_profile_data(realm):
    bot = realm.add_user("Helper Bot", is_bot=True)
    body = bot.get("/users/me").json
    assert body["is_bot"] is True and "profile_data" not in body
    assert set(body) == OWN_RECORD_FIELDS | {"result", "msg"}
    # its type and owner are in its user record, as in the reference
    record = bot.get(f"/users/{bot.user_id}").json["user"]
    assert record["bot_owner_id"] == realm.owner.user_id


def test_profile_data_with_rendered_values(realm):
    # GIVEN text, list and date fields with values
    def create(name, field_type, **extra):
        return realm.admin.post("/realm/profile_fields", {
            "name": name, "field_type": field_type, **extra}).json["id"]

    bio = create("Bio", 2)
    phone = create("Phone", 1)
    editor = create("Editor", 3, field_data={"vim": {"text": "Vim", "order": "1"}})
    birthday = create("Birthday", 4)
    assert realm.member.patch("/users/me/profile_data", {"data": [
        {"id": bio, "value": "**bold**"}, {"id": phone, "value": "123"},
        {"id": editor, "value": "vim"}, {"id": birthday, "value": "1990-12-31"}]}).ok
    # WHEN
    body = realm.member.get("/users/me").json
    # THEN Markdown-capable types carry the HTML, the others only the value
    assert body["profile_data"] == {
        str(bio): {"value": "**bold**", "rendered_value": "<p><strong>bold</strong></p>"},
        str(phone): {"value": "123", "rendered_value": "<p>123</p>"},
        str(editor): {"value": "vim"},
        str(birthday): {"value": "1990-12-31"},
    }
    # AND other users' records are not mixed in
    assert realm.admin.get("/users/me").json["profile_data"] == {}


def test_own_user_record_costs_a_fixed_number_of_dynamodb_requests(realm, monkeypatch):
    # GIVEN a profile with values (so nothing could be read lazily)
    field = realm.admin.post("/realm/profile_fields", {"name": "Bio", "field_type": 2}
                             ).json["id"]
    assert realm.member.patch("/users/me/profile_data",
                              {"data": [{"id": field, "value": "hi"}]}).ok
    import botocore.client

    calls = []
    real_call = botocore.client.BaseClient._make_api_call

    def counting(client, operation, params):
        if client.meta.service_model.service_name == "dynamodb":
            calls.append(operation)
        return real_call(client, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", counting)
    # WHEN
    body = realm.member.get("/users/me").json
    # THEN authentication, the user, and for max_message_id the caller's subscriptions,
    # their channels and their conversations (a fixed number, whatever the organization's
    # size), besides the rate limiter's one counter update (the realm's limits were read
    # by the request above)
    assert body["profile_data"][str(field)]["rendered_value"] == "<p>hi</p>"
    assert calls.count("UpdateItem") == 1, calls
    assert 1 <= len(calls) - 1 <= 5, calls
