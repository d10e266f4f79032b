"""What bots may do and how they are shown, by the reference's levels of its 12.x series
(473: administrator bots set users' statuses; 496: bots create and read user groups)."""
from __future__ import annotations

from chalicelib.core.principal import ROLE_ADMINISTRATOR
from tests.functional.bot_helpers import generic_bot
from tests.functional.user_group_helpers import MEMBERS


def test_administrator_bots_set_users_statuses_from_level_473(realm, advertise):
    bot = generic_bot(realm.owner, "statuses", role=ROLE_ADMINISTRATOR)
    plain = generic_bot(realm.member, "plain")
    path = f"/users/{realm.member.user_id}/status"
    advertise(472)
    refused = bot.post(path, {"status_text": "on call"})
    assert refused.status == 400 and refused.json["msg"] == "You are not allowed to do this."
    advertise(473)
    assert bot.post(path, {"status_text": "on call"}).ok
    assert realm.member.get(path).json["status"] == {"status_text": "on call"}
    # A bot without the role still may not
    refused = plain.post(path, {"status_text": "hacked"})
    assert refused.status == 400 and refused.json["msg"] == "You are not allowed to do this."


def test_bots_create_and_read_user_groups_from_level_496(realm, advertise):
    bot = generic_bot(realm.member, "grouper")
    create = {"name": "on call", "description": "who answers", "members": "[]"}
    reads = ("/user_groups", f"/user_groups/{MEMBERS}/members",
             f"/user_groups/{MEMBERS}/subgroups",
             f"/user_groups/{MEMBERS}/members/{realm.member.user_id}")
    advertise(495)
    refused = bot.post("/user_groups/create", create)
    assert refused.status == 400 and "bot" in refused.json["msg"].lower()
    for path in reads:
        assert not bot.get(path).ok, path
    advertise(496)
    created = bot.post("/user_groups/create", {**create, "members": f"[{bot.user_id}]"})
    assert created.ok, created.json
    group_id = created.json["group_id"]
    groups = {g["id"]: g for g in bot.get("/user_groups").json["user_groups"]}
    assert groups[group_id]["members"] == [bot.user_id]
    assert groups[group_id]["creator_id"] == bot.user_id
    assert bot.get(f"/user_groups/{MEMBERS}/members/{realm.member.user_id}").json[
        "is_user_group_member"] is True
    assert realm.member.user_id in bot.get(f"/user_groups/{MEMBERS}/members").json["members"]
    assert bot.get(f"/user_groups/{MEMBERS}/subgroups").ok
    # Changing groups stays for people; guests still may not create or read groups
    assert not bot.patch(f"/user_groups/{group_id}", {"description": "x"}).ok
    assert not realm.guest.post("/user_groups/create", create).ok
    assert not realm.guest.get("/user_groups").ok


def test_registration_lists_slim_bot_objects_from_level_474(realm, advertise):
    bot = generic_bot(realm.member, "slim")
    full = {"user_id", "full_name", "email", "bot_type", "is_active", "owner_id",
            "avatar_url", "api_key", "default_sending_stream",
            "default_events_register_stream", "default_all_public_streams", "services"}
    advertise(473)
    [listed] = realm.member.post("/register", {"fetch_event_types": ["realm_bot"]}).json[
        "realm_bots"]
    assert set(listed) == full and listed["full_name"] == "Slim Bot"
    advertise(474)
    [slim] = realm.member.post("/register", {"fetch_event_types": ["realm_bot"]}).json[
        "realm_bots"]
    assert slim == {"user_id": bot.user_id, "default_sending_stream": None,
                    "default_events_register_stream": None,
                    "default_all_public_streams": False, "services": []}
    # GET /bots keeps its full objects
    [own] = realm.member.get("/bots").json["bots"]
    assert own["full_name"] == "Slim Bot" and own["owner_id"] == realm.member.user_id
