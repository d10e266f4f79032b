"""POST /register's values (test_register_schema.py checks the keys and types): the
caller's own record and permissions, system bots, bots, channels, realm settings."""
from __future__ import annotations

from chalicelib.actions.users.system_bots import (
    NOTIFICATION_BOT_EMAIL,
    notification_bot,
)
from chalicelib.rules.realm_settings import system_group_id


def register(account, fetch_types, **params):
    response = account.post("/register", {"fetch_event_types": fetch_types, **params})
    assert response.ok, response.json
    return response.json


def channel_ids(items):
    return sorted(item["stream_id"] for item in items)


def test_own_record_and_permissions_follow_the_caller(realm):
    # WHEN each role registers for its users
    owner = register(realm.owner, ["realm_user"])
    member = register(realm.member, ["realm_user"])
    guest = register(realm.guest, ["realm_user"])
    # THEN the top-level keys describe the caller
    assert (member["user_id"], member["email"], member["delivery_email"],
            member["full_name"]) == (realm.member.user_id, realm.member.email,
                                     realm.member.email, "Max Member")
    assert member["avatar_url"].startswith("https://secure.gravatar.com/avatar/")
    assert member["avatar_url_medium"] != member["avatar_url"]
    assert member["avatar_source"] == "G"
    assert (owner["is_owner"], owner["is_admin"], owner["is_moderator"],
            owner["is_guest"]) == (True, True, True, False)   # is_moderator: level 380
    assert register(realm.moderator, ["realm_user"])["is_moderator"] is True
    assert (guest["is_admin"], guest["is_guest"]) == (False, True)
    # AND the permissions are the realm's defaults for each role
    for body in (owner, member):
        assert body["can_create_public_streams"] and body["can_create_private_streams"]
        assert body["can_subscribe_other_users"] and body["can_invite_others_to_realm"]
    for key in ("can_create_streams", "can_create_public_streams",
                "can_create_private_streams", "can_create_web_public_streams",
                "can_subscribe_other_users", "can_invite_others_to_realm"):
        assert guest[key] is False, key
    # (web-public channels need the organization's spectator access, off by default)
    assert owner["can_create_web_public_streams"] is False


def test_permissions_follow_the_realm_settings(realm):
    # GIVEN invitations limited to administrators
    assert realm.owner.patch("/realm", {"can_invite_users_group": {
        "new": system_group_id("role:administrators")}}).ok
    # THEN members may no longer invite, administrators still may
    assert register(realm.member, ["realm_user"])["can_invite_others_to_realm"] is False
    assert register(realm.admin, ["realm_user"])["can_invite_others_to_realm"] is True
    # AND the realm state shows the setting and its deprecated form is unaffected
    state = register(realm.member, ["realm"])
    assert state["realm_can_invite_users_group"] == system_group_id("role:administrators")
    assert state["realm_create_public_stream_policy"] == 1   # members


def test_system_bots_are_cross_realm_bots_not_realm_users(realm):
    # GIVEN the notification bot exists (made on first use)
    bot = notification_bot(realm.realm_id)
    body = register(realm.member, ["realm_user"])
    # THEN it is listed once, as a system bot
    assert [b["email"] for b in body["cross_realm_bots"]] == [NOTIFICATION_BOT_EMAIL]
    assert body["cross_realm_bots"][0]["is_system_bot"] is True
    assert body["cross_realm_bots"][0]["user_id"] == bot.user_id
    assert bot.user_id not in {u["user_id"] for u in body["realm_users"]}


def test_listed_people_carry_no_is_active(realm):
    # GIVEN a deactivated person and a system bot
    gone = realm.add_user("Gone Soon")
    assert realm.owner.delete(f"/users/{gone.user_id}").ok
    notification_bot(realm.realm_id)
    body = register(realm.member, ["realm_user"])
    # THEN each list says whether its people are active, and no entry repeats it (as the
    # reference: "all the users present in this array have active accounts")
    active = {u["user_id"]: u for u in body["realm_users"]}
    gone_ones = {u["user_id"]: u for u in body["realm_non_active_users"]}
    assert realm.member.user_id in active and gone.user_id in gone_ones
    assert not [u for u in [*active.values(), *gone_ones.values()] if "is_active" in u]
    # AND everything else of a person is still there
    assert set(active[realm.member.user_id]) >= {
        "user_id", "email", "delivery_email", "full_name", "date_joined", "is_owner",
        "is_admin", "is_guest", "is_bot", "role", "timezone", "avatar_url",
        "avatar_version", "profile_data"}
    # AND the cross-realm bots keep theirs (the reference's schema lists it for them)
    assert [b["is_active"] for b in body["cross_realm_bots"]] == [True]
    # AND GET /users still says it
    assert all("is_active" in u for u in realm.member.get("/users").json["members"])


def test_realm_bots_are_the_bots_the_caller_administers(realm, advertise):
    advertise(473)   # the full bot objects (slim from 474: test_bots_by_level.py)
    # GIVEN a bot of the member's, one of the owner's, and the notification bot
    assert realm.member.post("/bots", {"full_name": "Mine", "short_name": "mine"}).ok
    assert realm.owner.post("/bots", {"full_name": "Hook", "short_name": "hook",
                                      "bot_type": 3,
                                      "payload_url": "https://hooks.example.com/x"}).ok
    notification_bot(realm.realm_id)
    # THEN the member sees their own; an administrator sees both; guests none
    mine = register(realm.member, ["realm_bot"])["realm_bots"]
    assert [b["full_name"] for b in mine] == ["Mine"]
    assert mine[0]["owner_id"] == realm.member.user_id and mine[0]["is_active"] is True
    everyone = register(realm.admin, ["realm_bot"])["realm_bots"]
    assert [b["full_name"] for b in everyone] == ["Mine", "Hook"]
    [service] = everyone[1]["services"]
    assert service["base_url"] == "https://hooks.example.com/x" and service["token"]
    assert register(realm.guest, ["realm_bot"])["realm_bots"] == []


def test_channels_by_what_the_caller_can_see(realm):
    # GIVEN a public and a private channel of the owner's, a public one the owner left,
    # and a public one of the member's, the first public one being a default channel
    assert realm.owner.post("/users/me/subscriptions", {"subscriptions": [
        {"name": "general"}, {"name": "left"}]}).ok
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "secret"}], "invite_only": True}).ok
    assert realm.member.post("/users/me/subscriptions", {"subscriptions": [
        {"name": "random"}]}).ok
    ids = {s["name"]: s["stream_id"] for s in realm.owner.get("/streams").json["streams"]}
    ids.update({s["name"]: s["stream_id"]
                for s in realm.owner.get("/users/me/subscriptions").json["subscriptions"]})
    assert realm.owner.patch(f"/streams/{ids['general']}", {"is_default_stream": True}).ok
    assert realm.owner.delete("/users/me/subscriptions", {"subscriptions": ["left"]}).ok
    # WHEN each registers for channels
    types = ["subscription", "stream", "default_streams"]
    owner = register(realm.owner, types, include_subscribers=True)
    member = register(realm.member, types)
    guest = register(realm.guest, types)
    # THEN subscriptions, past and never-joined channels are told apart
    assert channel_ids(owner["subscriptions"]) == sorted([ids["general"], ids["secret"]])
    assert channel_ids(owner["unsubscribed"]) == [ids["left"]]
    assert channel_ids(owner["never_subscribed"]) == [ids["random"]]
    [random] = owner["never_subscribed"]
    assert random["subscribers"] == [realm.member.user_id]
    # AND members see public channels but not others' private ones; guests only theirs
    assert channel_ids(member["streams"]) == sorted([ids["general"], ids["left"],
                                                     ids["random"]])
    assert ids["secret"] not in channel_ids(member["never_subscribed"])
    assert channel_ids(owner["streams"]) == sorted(ids.values())
    assert guest["streams"] == [] and guest["never_subscribed"] == []
    # AND default channels, which guests never get
    assert member["realm_default_streams"] == [ids["general"]]
    assert guest["realm_default_streams"] == []


def test_archived_channels_only_for_clients_that_handle_them(realm):
    assert realm.owner.post("/users/me/subscriptions", {"subscriptions": [
        {"name": "old news"}]}).ok
    [stream] = realm.owner.get("/users/me/subscriptions").json["subscriptions"]
    assert realm.owner.delete(f"/streams/{stream['stream_id']}").ok
    plain = register(realm.owner, ["subscription", "stream"])
    assert plain["subscriptions"] == [] and plain["streams"] == []
    capable = register(realm.owner, ["subscription", "stream"],
                       client_capabilities={"archived_channels": True})
    assert [s["is_archived"] for s in capable["subscriptions"]] == [True]
    assert channel_ids(capable["streams"]) == [stream["stream_id"]]


def test_realm_settings_show_stored_values_and_reference_defaults(realm, advertise):
    advertise(391)
    assert realm.owner.patch("/realm", {"topics_policy": "disable_empty_topic",
                                        "message_content_edit_limit_seconds": "unlimited"}).ok
    state = register(realm.member, ["realm"])
    # Stored settings, and the deprecated forms derived from them (topics_policy itself
    # only from level 392)
    assert "realm_topics_policy" not in state
    assert state["realm_mandatory_topics"] is True
    assert state["realm_message_content_edit_limit_seconds"] is None
    # Settings nothing changes yet: the reference's defaults, or what the server does
    assert state["realm_default_language"] == "en"
    assert state["realm_message_edit_history_visibility_policy"] == "all"
    assert state["realm_allow_edit_history"] is True
    assert state["realm_enable_read_receipts"] is False
    assert state["realm_can_add_custom_emoji_group"] == system_group_id("role:members")
    assert state["realm_url"].startswith("https://") and state["realm_uri"] == state[
        "realm_url"]
    # The server's facts
    assert state["password_min_length"] == 8 and state["max_file_upload_size_mib"] == 5
    realm_groups = state["server_supported_permission_settings"]["realm"]
    assert realm_groups["can_access_all_users_group"]["allowed_system_groups"] == [
        "role:everyone", "role:members"]
    assert realm_groups["can_add_subscribers_group"]["allow_everyone_group"] is False
    # The channel creator's group, by the name of the level (427 renamed it)
    assert state["server_supported_permission_settings"]["stream"][
        "can_administer_channel_group"]["default_group_name"] == "stream_creator_or_nobody"
    advertise(427)
    assert register(realm.member, ["realm"])["server_supported_permission_settings"][
        "stream"]["can_administer_channel_group"]["default_group_name"] == "channel_creator"


def test_placeholders_are_typed_and_empty(realm):
    body = register(realm.member, ["message", "update_message_flags", "presence",
                                   "muted_users"])
    assert body["unread_msgs"]["count"] == 0
    assert body["presences"] == {} and body["presence_last_update_id"] == -1
    assert isinstance(body["server_timestamp"], float) and body["muted_users"] == []
    # unread_msgs needs both types, as in the reference
    assert "unread_msgs" not in register(realm.member, ["message"])
