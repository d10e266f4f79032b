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


def test_wrong_api_key_is_401(realm, anonymous):
    token = base64.b64encode(f"{realm.member.email}:wrongkey".encode()).decode()
    response = anonymous("GET", "/users/me", headers={"Authorization": f"Basic {token}"})
    assert response.status == 401 and response.json["code"] == "INVALID_API_KEY"


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
    response = realm.member.call("DELETE", "/server_settings")
    assert response.status == 405
    assert response.json["result"] == "error"
