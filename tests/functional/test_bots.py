"""POST /bots and GET /bots: bot types, outgoing-webhook services and their tokens."""
from __future__ import annotations

import base64
import json

import pytest

from chalicelib.models.users import User

CREATED_FIELDS = {"result", "msg", "user_id", "api_key", "avatar_url", "default_sending_stream",
                  "default_events_register_stream", "default_all_public_streams"}
# The reference's Bot object without api_key (stored only as a hash), plus `username`.
LISTED_FIELDS = {"user_id", "username", "email", "full_name", "bot_type", "is_active",
                 "owner_id", "avatar_url", "default_sending_stream",
                 "default_events_register_stream", "default_all_public_streams", "services"}


def basic(email: str, key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()}


def test_an_outgoing_webhook_bot_is_created_and_listed_with_its_token(realm, anonymous):
    # WHEN a member creates an outgoing-webhook bot (payload_url JSON-encoded, as the
    # reference's clients send it)
    created = realm.member.post("/bots", {
        "full_name": "Echo Bot", "short_name": "echo", "bot_type": 3,
        "payload_url": json.dumps("https://bots.example.com/echo"), "interface_type": 1})
    # THEN the answer has the reference's fields
    assert created.ok, created.json
    assert set(created.json) == CREATED_FIELDS
    # AND GET /bots shows it with its service and a fixed alphanumeric token
    [bot] = realm.member.get("/bots").json["bots"]
    assert set(bot) == LISTED_FIELDS
    assert bot["user_id"] == created.json["user_id"] and bot["bot_type"] == 3
    assert bot["owner_id"] == realm.member.user_id and bot["is_active"] is True
    assert bot["username"] == bot["email"] == f"echo-bot@{realm.subdomain}.example.com"
    [service] = bot["services"]
    assert set(service) == {"base_url", "interface", "token"}
    assert service["base_url"] == "https://bots.example.com/echo"
    assert service["interface"] == 1
    assert len(service["token"]) == 32 and service["token"].isalnum()
    assert realm.member.get("/bots").json["bots"][0]["services"][0]["token"] == \
        service["token"]
    # AND its API key works, as a bot of type 3
    me = anonymous("GET", "/users/me", headers=basic(bot["email"], created.json["api_key"]))
    assert me.ok and me.json["is_bot"]
    own = anonymous("GET", f"/users/{me.json['user_id']}",
                    headers=basic(bot["email"], created.json["api_key"]))
    assert own.json["user"]["bot_type"] == 3


def test_other_bot_types_and_a_bare_payload_url(realm):
    generic = realm.member.post("/bots", {"full_name": "Plain", "short_name": "plain"})
    incoming = realm.member.post("/bots", {"full_name": "Hook", "short_name": "hook",
                                           "bot_type": 2})
    slack = realm.member.post("/bots", {"full_name": "Slacky", "short_name": "slacky",
                                        "bot_type": 3, "interface_type": 2,
                                        "payload_url": "http://bots.example.com/slack"})
    assert generic.ok and incoming.ok and slack.ok, (generic.json, incoming.json, slack.json)
    bots = {b["full_name"]: b for b in realm.member.get("/bots").json["bots"]}
    assert bots["Plain"]["bot_type"] == 1 and bots["Plain"]["services"] == []
    assert bots["Hook"]["bot_type"] == 2 and bots["Hook"]["services"] == []
    assert bots["Slacky"]["services"][0]["interface"] == 2
    assert bots["Slacky"]["services"][0]["base_url"] == "http://bots.example.com/slack"


@pytest.mark.parametrize("params, message", [
    ({"bot_type": 9}, "Unknown bot type"),
    ({"bot_type": 3, "payload_url": '"https://x.example.com"', "interface_type": 5},
     "Unknown outgoing-webhook interface type"),
    ({"bot_type": 3}, "The 'payload_url' parameter is required"),
    ({"bot_type": 3, "payload_url": '"ftp://x.example.com"'}, "Invalid outgoing webhook URL"),
    ({"bot_type": 3, "payload_url": '"not a url"'}, "Invalid outgoing webhook URL"),
    ({"bot_type": 3, "payload_url": '"http://[::1"'}, "Invalid outgoing webhook URL"),
    ({"bot_type": 3, "payload_url": '"http://exa mple.com/"'}, "Invalid outgoing webhook URL"),
    ({"short_name": "Bad Name!"}, "Bad name or username"),
    ({"full_name": ""}, "Name cannot be empty."),
])
def test_invalid_bots_are_refused(realm, params, message):
    response = realm.member.post("/bots", {"full_name": "W", "short_name": "w", **params})
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST"
    assert response.json["msg"].startswith(message)
    assert realm.member.get("/bots").json["bots"] == []


def test_names_must_be_free(realm):
    assert realm.member.post("/bots", {"full_name": "Echo", "short_name": "echo"}).ok
    taken = realm.member.post("/bots", {"full_name": "Other", "short_name": "echo"})
    assert taken.json["msg"] == "That bot username is taken"
    same_name = realm.admin.post("/bots", {"full_name": "Max Member", "short_name": "max"})
    assert same_name.json["msg"] == "Another bot already has that name."


def test_who_may_create_and_list_bots(realm):
    assert realm.guest.post("/bots", {"full_name": "G", "short_name": "g"}).json["msg"] == \
        "Guests cannot do this"
    assert realm.guest.get("/bots").json["msg"] == "Guests cannot do this"
    bot = realm.add_user("Some Bot", is_bot=True)
    assert bot.post("/bots", {"full_name": "B", "short_name": "b"}).json["msg"] == \
        "Bots cannot use this endpoint."
    # each user lists only their own bots, and only active ones
    mine = realm.member.post("/bots", {"full_name": "Mine", "short_name": "mine"})
    gone = realm.member.post("/bots", {"full_name": "Gone", "short_name": "gone"})
    User(realm.realm_id, gone.json["user_id"]).update(actions=[User.is_active.set(False)])
    assert [b["user_id"] for b in realm.member.get("/bots").json["bots"]] == [
        mine.json["user_id"]]
    assert realm.admin.get("/bots").json["bots"] == []


def test_a_bot_is_not_created_for_an_owner_deactivated_meanwhile(realm):
    from chalicelib.actions.users.bots import do_create_bot
    from chalicelib.core.errors import ApiError
    from chalicelib.models.users import User

    # GIVEN the owner as the request read it, then deactivated before the bot is written
    owner = User.get(realm.realm_id, realm.member.user_id)
    assert realm.admin.delete(f"/users/{realm.member.user_id}").ok
    # WHEN the bot is created from the stale read
    with pytest.raises(ApiError, match="owner has been deactivated"):
        do_create_bot(realm.realm_id, owner, "Late Bot", "late")
    # THEN no bot exists to outlive its owner
    names = [u["full_name"] for u in realm.admin.get("/users").json["members"]]
    assert "Late Bot" not in names
