"""GET /streams/{id}/members, GET /users/{id}/channels, GET /users/{id}/subscriptions/{stream_id},
GET /user_groups/{id}/members and /subgroups, GET /streams/{id}/email_address,
PATCH /users/me/subscriptions."""
from __future__ import annotations

from chalicelib.rules.realm_settings import system_group_id
from tests.functional.edit_helpers import channel
from tests.functional.user_group_helpers import create_ok


def error_of(response) -> str:
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST", response.json
    return response.json["msg"]


def test_channel_members_and_subscription_status(realm):
    public = channel(realm.admin, "open", members=[realm.admin, realm.member])
    secret = channel(realm.admin, "secret", members=[realm.admin], invite_only=True)
    response = realm.guest.get(f"/streams/{public}/members")
    assert error_of(response) == "No channel you can see has that ID."   # guests see only their channels
    assert realm.owner.get(f"/streams/{public}/members").json["subscribers"] == sorted(
        [realm.admin.user_id, realm.member.user_id])
    assert error_of(realm.member.get(f"/streams/{secret}/members")) == "No channel you can see has that ID."
    assert error_of(realm.member.get("/streams/999999/members")) == "No channel you can see has that ID."
    status = realm.owner.get(f"/users/{realm.member.user_id}/subscriptions/{public}").json
    assert status["is_subscribed"] is True
    status = realm.owner.get(f"/users/{realm.guest.user_id}/subscriptions/{public}").json
    assert status["is_subscribed"] is False
    assert error_of(realm.member.get(
        f"/users/{realm.admin.user_id}/subscriptions/{secret}")) == "No channel you can see has that ID."
    assert error_of(realm.member.get(f"/users/999999/subscriptions/{public}")) == \
        "No such person in this organization."


def test_another_users_channels_as_far_as_the_caller_may_see_them(realm):
    public = channel(realm.admin, "open", members=[realm.admin, realm.member])
    secret = channel(realm.admin, "secret", members=[realm.admin], invite_only=True)
    archived = channel(realm.admin, "old", members=[realm.admin])
    assert realm.admin.delete(f"/streams/{archived}").ok

    def channels_of(viewer, target) -> list[int]:
        response = viewer.get(f"/users/{target.user_id}/channels")
        assert response.ok, response.json
        return response.json["subscribed_channel_ids"]

    # Administrators see them all (level 440); a member only those they may know of
    assert channels_of(realm.owner, realm.admin) == sorted([public, secret, archived])
    assert channels_of(realm.member, realm.admin) == sorted([public, archived])
    assert channels_of(realm.member, realm.member) == [public]
    # A guest sees only the channels they are in themselves
    assert channels_of(realm.guest, realm.admin) == []
    assert error_of(realm.member.get("/users/999999/channels")) == "No such person in this organization."


def test_group_members_and_subgroups_direct_and_recursive(realm):
    inner = create_ok(realm.admin, "Inner", [realm.member.user_id])
    outer = create_ok(realm.admin, "Outer", [realm.admin.user_id])
    assert realm.admin.post(f"/user_groups/{outer}/subgroups",
                            {"add": [inner]}).ok
    members = realm.member.get(f"/user_groups/{outer}/members").json["members"]
    assert members == sorted([realm.admin.user_id, realm.member.user_id])
    direct = realm.member.get(f"/user_groups/{outer}/members",
                              {"direct_member_only": True}).json["members"]
    assert direct == [realm.admin.user_id]
    assert realm.member.get(f"/user_groups/{outer}/subgroups").json["subgroups"] == [inner]
    # System groups: members from roles, subgroups down the chain
    admins = system_group_id("role:administrators")
    owners = system_group_id("role:owners")
    assert realm.member.get(f"/user_groups/{admins}/members").json["members"] == sorted(
        [realm.owner.user_id, realm.admin.user_id])
    assert realm.member.get(f"/user_groups/{admins}/members",
                            {"direct_member_only": True}).json["members"] == \
        [realm.admin.user_id]
    moderators = system_group_id("role:moderators")
    assert realm.member.get(f"/user_groups/{moderators}/subgroups").json["subgroups"] == \
        sorted([admins, owners])
    assert realm.member.get(f"/user_groups/{moderators}/subgroups",
                            {"direct_subgroup_only": True}).json["subgroups"] == [admins]
    # Refusals
    assert error_of(realm.member.get("/user_groups/999999/members")) == "No such user group exists"
    assert error_of(realm.guest.get(f"/user_groups/{outer}/members")) == \
        "Guests cannot do this"
    assert error_of(realm.guest.get(f"/user_groups/{outer}/subgroups")) == \
        "Guests cannot do this"


def test_channel_email_address_without_a_gateway(realm):
    public = channel(realm.admin, "open", members=[realm.member])
    secret = channel(realm.admin, "secret", invite_only=True)
    assert realm.member.get(f"/streams/{public}/email_address").json["email"] == ""
    assert realm.member.get(f"/streams/{public}/email_address",
                            {"sender_id": realm.member.user_id}).ok
    assert error_of(realm.member.get(f"/streams/{public}/email_address",
                                     {"sender_id": realm.admin.user_id})) == "Invalid user ID"
    assert error_of(realm.member.get(f"/streams/{secret}/email_address")) == \
        "No channel you can see has that ID."


def test_subscribe_and_unsubscribe_in_one_request(realm):
    channel(realm.admin, "old", members=[realm.member])
    # A channel that does not exist refuses the whole request, before anything is done
    response = realm.member.patch("/users/me/subscriptions", {
        "add": [{"name": "new"}], "delete": ["nowhere"]})
    assert response.json["code"] == "STREAM_DOES_NOT_EXIST"
    assert realm.member.get("/get_stream_id", {"stream": "new"}).status == 400
    response = realm.member.patch("/users/me/subscriptions", {
        "add": [{"name": "new"}, {"name": "old"}], "delete": ["old", "new2"]})
    assert response.json["code"] == "STREAM_DOES_NOT_EXIST"
    channel(realm.admin, "other")
    response = realm.member.patch("/users/me/subscriptions", {
        "add": [{"name": "new"}, {"name": "old"}], "delete": ["old", "other"]})
    assert response.ok, response.json
    body = response.json
    # Keyed by user id since feature level 289.
    assert body["subscribed"] == {str(realm.member.user_id): ["new"]}
    assert body["already_subscribed"] == {str(realm.member.user_id): ["old"]}
    assert (body["removed"], body["not_removed"]) == (["old"], ["other"])
    names = {s["name"] for s in realm.member.get("/users/me/subscriptions").json[
        "subscriptions"]}
    assert names == {"new"}
    assert error_of(realm.member.patch("/users/me/subscriptions", {})) == \
        'Nothing was asked for: send "add", "delete" or both.'
