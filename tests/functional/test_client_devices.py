"""Logged-in mobile devices and end-to-end encrypted push (levels 468, 470, 483, 492,
500): POST /register_client_device, /remove_client_device, /mobile_push/register,
/mobile_push/e2ee/test_notification, `devices` and `device` events, and the encrypted
notifications the notifier sends through SNS.

The app's side is played here with PyNaCl, as the reference's apps do with libsodium: the
token sealed to the server's public key, each notification opened with the push key."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import time

import boto3
import pytest
from nacl.public import PublicKey, SealedBox
from nacl.secret import SecretBox

from chalicelib.rules.push_crypto import public_keys


@pytest.fixture
def fcm_app(monkeypatch):
    arn = boto3.client("sns", region_name="us-east-1").create_platform_application(
        Name="teamchat-test-fcm-e2ee", Platform="GCM",
        Attributes={"PlatformCredential": "k"})["PlatformApplicationArn"]
    monkeypatch.setenv("SNS_FCM_PLATFORM_ARN", arn)
    return arn


class App:
    """A phone's app: its push key, and its FCM token sealed for the server."""

    def __init__(self, token: str, key_id: int = 7) -> None:
        self.token = token
        self.key_id = key_id
        self.secret = os.urandom(32)

    @property
    def push_key(self) -> str:
        return base64.b64encode(bytes([0x31]) + self.secret).decode()

    @property
    def token_id(self) -> str:
        return base64.b64encode(hashlib.sha256(self.token.encode()).digest()[:8]).decode()

    def sealed(self, *, stamp: float | None = None, server_key: str | None = None,
               **changes) -> str:
        registration = {"token": self.token, "token_kind": "fcm",
                        "timestamp": int(time.time() if stamp is None else stamp), **changes}
        key = PublicKey(base64.b64decode(server_key or public_keys()[0]))
        return base64.b64encode(SealedBox(key).encrypt(json.dumps(registration).encode())
                                ).decode()

    def registration(self, device_id: int, **sealing) -> dict:
        return {"device_id": device_id, "push_key_id": self.key_id,
                "push_key": self.push_key, "token_kind": "fcm", "token_id": self.token_id,
                "bouncer_public_key": sealing.pop("server_key", public_keys()[0]),
                "encrypted_push_registration": self.sealed(**sealing)}

    def opened(self, data: dict) -> dict:
        """A notification as the app decrypts it."""
        assert data["push_key_id"] == str(self.key_id)
        return json.loads(SecretBox(self.secret).decrypt(base64.b64decode(
            data["encrypted_data"])))


def published(fcm_app: str, token: str) -> list[dict]:
    """The FCM data of what SNS published to the endpoint of this token."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.sns.models import sns_backends
    backend = sns_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    [endpoint] = [e for e in backend.platform_endpoints.values()
                  if e.application.arn == fcm_app and e.token == token]
    return [json.loads(json.loads(m)["GCM"])["data"] for m in endpoint.messages.values()]


def device_events(account, queue_id, fetch_events) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "id"} for e in fetch_events(account, queue_id)
            if e["type"] == "device"]


def new_device(account) -> int:
    answer = account.post("/register_client_device")
    assert answer.ok, answer.json
    return int(answer.json["device_id"])


def test_a_device_registers_and_is_removed_with_its_events_and_state(
        realm, register_queue, fetch_events, drain_events, advertise):
    advertise(470)
    state = register_queue(realm.member, event_types=["device"],
                           fetch_event_types=["device"])
    assert state["devices"] == {}
    # WHEN the app registers itself
    device_id = new_device(realm.member)
    drain_events()
    # THEN its owner's clients hear of it, and registration lists it (nothing pushed yet)
    assert device_events(realm.member, state["queue_id"], fetch_events) == [
        {"type": "device", "op": "add", "device_id": device_id}]
    listed = register_queue(realm.member, fetch_event_types=["device"])["devices"]
    assert listed == {str(device_id): {
        "push_key_id": None, "push_token_id": None, "pending_push_token_id": None,
        "push_token_last_updated_timestamp": None, "push_registration_error_code": None}}
    # AND nobody else sees or removes it
    assert register_queue(realm.admin, fetch_event_types=["device"])["devices"] == {}
    refused = realm.admin.post("/remove_client_device", {"device_id": device_id})
    assert (refused.status, refused.json["msg"]) == (400, "Invalid device_id")
    # WHEN the user logs out, THEN the device is gone, and its clients are told
    assert realm.member.post("/remove_client_device", {"device_id": device_id}).ok
    drain_events()
    assert device_events(realm.member, state["queue_id"], fetch_events)[-1] == {
        "type": "device", "op": "remove", "device_id": device_id}
    assert register_queue(realm.member, fetch_event_types=["device"])["devices"] == {}


def test_below_level_468_registration_has_no_devices(realm, register_queue, advertise):
    advertise(467)
    assert "devices" not in register_queue(realm.member, fetch_event_types=["device"])


def test_push_registration_opens_the_token_and_notifications_are_encrypted(
        realm, register_queue, fetch_events, drain_events, notifier, fcm_app, advertise):
    advertise(483)
    app = App("fcm-token-e2ee-1")
    # GIVEN the same phone registered the legacy way before (the app below level 468)
    assert realm.admin.post("/users/me/android_gcm_reg_id", {"token": app.token}).ok
    queue = register_queue(realm.admin, event_types=["device"])["queue_id"]
    device_id = new_device(realm.admin)
    # WHEN the app registers its key and its sealed token
    assert realm.admin.post("/mobile_push/register", app.registration(device_id)).ok
    drain_events()
    # THEN the token went pending, then registered, as the reference's two steps say
    added, pending, registered = device_events(realm.admin, queue, fetch_events)
    assert added["op"] == "add"
    assert {k: v for k, v in pending.items() if k != "push_token_last_updated_timestamp"} \
        == {"type": "device", "op": "update", "device_id": device_id, "push_key_id": 7,
            "pending_push_token_id": app.token_id, "push_registration_error_code": None}
    assert abs(pending["push_token_last_updated_timestamp"] - time.time()) < 60
    assert registered == {"type": "device", "op": "update", "device_id": device_id,
                          "push_token_id": app.token_id, "pending_push_token_id": None}
    assert register_queue(realm.admin, fetch_event_types=["device"])["devices"][
        str(device_id)]["push_token_id"] == app.token_id
    # AND the legacy registration of that token is gone (level 483)
    assert realm.admin.delete("/users/me/android_gcm_reg_id", {"token": app.token}).json[
        "msg"] == "That device token is not registered"
    # WHEN someone writes to the user, THEN the phone gets it encrypted for its key alone
    sent = realm.member.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                           "content": "the plan is ready"}).json["id"]
    notifier.run()
    [pushed] = published(fcm_app, app.token)
    assert set(pushed) == {"push_key_id", "encrypted_data"}
    assert "plan" not in json.dumps(pushed)
    message = app.opened(pushed)
    assert {k: message[k] for k in ("type", "message_id", "content", "sender_id",
                                    "sender_full_name", "recipient_type", "user_id",
                                    "recipient_user_ids")} == {
        "type": "message", "message_id": sent, "content": "the plan is ready",
        "sender_id": realm.member.user_id, "sender_full_name": realm.member.full_name,
        "recipient_type": "direct", "user_id": realm.admin.user_id,
        "recipient_user_ids": sorted([realm.admin.user_id, realm.member.user_id])}
    assert message["realm_url"].startswith("http") and message["time"] > 0
    # AND reading it elsewhere takes the notification down, encrypted too
    assert realm.admin.post("/messages/flags", {"messages": [sent], "op": "add",
                                                "flag": "read"}).ok
    notifier.run()
    removal = app.opened(published(fcm_app, app.token)[-1])
    assert (removal["type"], removal["message_ids"]) == ("remove", [sent])


def test_registrations_the_server_cannot_take_are_told_on_the_device(
        realm, register_queue, fetch_events, drain_events, fcm_app, advertise):
    advertise(468)
    app = App("fcm-token-e2ee-2")
    queue = register_queue(realm.member, event_types=["device"])["queue_id"]
    device_id = new_device(realm.member)
    other_server = base64.b64encode(bytes(PublicKey(os.urandom(32)))).decode()
    cases = [({"server_key": other_server}, "INVALID_BOUNCER_PUBLIC_KEY"),
             ({"stamp": time.time() - 2 * 24 * 3600}, "REQUEST_EXPIRED"),
             ({"token_kind": "apns"}, "BAD_REQUEST")]
    for sealing, code in cases:
        # A registration sealed for another server, too old, or not what it says
        assert realm.member.post("/mobile_push/register",
                                 app.registration(device_id, **sealing)).ok
        drain_events()
        assert device_events(realm.member, queue, fetch_events)[-1] == {
            "type": "device", "op": "update", "device_id": device_id,
            "push_registration_error_code": code}
    assert register_queue(realm.member, fetch_event_types=["device"])["devices"][
        str(device_id)]["push_registration_error_code"] == "BAD_REQUEST"
    # A good one again clears the error
    assert realm.member.post("/mobile_push/register", app.registration(device_id)).ok
    info = register_queue(realm.member, fetch_event_types=["device"])["devices"][
        str(device_id)]
    assert (info["push_token_id"], info["push_registration_error_code"]) == (
        app.token_id, None)


def test_keys_and_tokens_rotate_alone_and_bad_requests_change_nothing(
        realm, register_queue, fetch_events, drain_events, fcm_app, advertise):
    advertise(468)
    app = App("fcm-token-e2ee-3")
    device_id = new_device(realm.member)
    full = app.registration(device_id)
    key_only = {k: full[k] for k in ("device_id", "push_key_id", "push_key")}
    token_only = {k: v for k, v in full.items() if k not in ("push_key_id", "push_key")}
    # Rotating before any registration: refused
    for partial in (key_only, token_only):
        assert realm.member.post("/mobile_push/register", partial).status == 400
    errors = {
        "Missing parameters": {"device_id": device_id, "push_key": app.push_key},
        "Invalid push_key": {**full, "push_key": base64.b64encode(b"\x32" + app.secret
                                                                  ).decode()},
        "Invalid push_key_id": {**full, "push_key_id": 2**32},
        "token_id is not Base64": {**full, "token_id": "@abcdefg"},
        "Invalid device_id": {**full, "device_id": new_device(realm.admin)},
    }
    for start, params in errors.items():
        answer = realm.member.post("/mobile_push/register", params)
        assert answer.status == 400 and answer.json["msg"].startswith(start), answer.json
    assert realm.member.post("/mobile_push/register", full).ok
    drain_events()   # delivered before the queue below exists
    queue = register_queue(realm.member, event_types=["device"])["queue_id"]
    # The same registration again: nothing changes, nobody is told
    assert realm.member.post("/mobile_push/register", full).ok
    # A new key alone: one update naming it
    app.key_id, app.secret = 8, os.urandom(32)
    assert realm.member.post("/mobile_push/register", {
        "device_id": device_id, "push_key_id": 8, "push_key": app.push_key}).ok
    drain_events()
    assert device_events(realm.member, queue, fetch_events) == [
        {"type": "device", "op": "update", "device_id": device_id, "push_key_id": 8}]


def test_e2ee_test_notification_and_a_new_api_key_ending_registrations(
        realm, register_queue, fetch_events, drain_events, fcm_app, advertise):
    advertise(492)
    app = App("fcm-token-e2ee-4")
    device_id = new_device(realm.member)
    assert realm.member.post("/mobile_push/e2ee/test_notification").status == 400
    assert realm.member.post("/mobile_push/register", app.registration(device_id)).ok
    # WHEN the user asks for a test notification, THEN the phone gets one, encrypted
    assert realm.member.post("/mobile_push/e2ee/test_notification",
                             {"device_id": device_id}).ok
    test = app.opened(published(fcm_app, app.token)[-1])
    assert (test["type"], test["user_id"]) == ("test", realm.member.user_id)
    # WHEN the user regenerates their API key (level 492), THEN the devices end with it
    drain_events()
    queue = register_queue(realm.member, event_types=["device"])["queue_id"]
    new_key = realm.member.post("/users/me/api_key/regenerate").json["api_key"]
    realm.member.api_key = new_key
    drain_events()
    assert device_events(realm.member, queue, fetch_events) == [
        {"type": "device", "op": "remove", "device_id": device_id}]
    assert register_queue(realm.member, fetch_event_types=["device"])["devices"] == {}


def test_required_e2ee_ends_legacy_push_from_level_500(realm, notifier, fcm_app, advertise):
    advertise(500)
    app = App("fcm-token-e2ee-5")
    assert realm.admin.post("/users/me/android_gcm_reg_id", {"token": "legacy-phone"}).ok
    assert realm.admin.post("/mobile_push/register",
                            app.registration(new_device(realm.admin))).ok
    assert realm.admin.patch("/realm", {"require_e2ee_push_notifications": True}).ok
    realm.member.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                    "content": "for your eyes"})
    notifier.run()
    # THEN only the encrypted registration is notified; the legacy phone gets nothing
    assert published(fcm_app, "legacy-phone") == []
    assert app.opened(published(fcm_app, app.token)[-1])["content"] == "for your eyes"
