"""Channel permissions beyond PATCH /streams: subscribing others, content and metadata
access through the channel's groups."""
from __future__ import annotations

from tests.functional.edit_helpers import channel
from tests.functional.stream_admin_helpers import (
    ADMINS,
    error,
    only,
    patch,
    set_realm_settings,
    stream,
)


def subscribe(account, name: str, *others) -> object:
    return account.post("/users/me/subscriptions", {
        "subscriptions": [{"name": name}], "principals": [o.user_id for o in others]})


def test_subscribing_others_follows_the_realm_and_channel_groups(realm):
    other = realm.add_user("Other Member")
    channel(realm.admin, "general", [realm.admin])
    stream_id = realm.admin.get("/get_stream_id", {"stream": "general"}).json["stream_id"]
    # By default members may subscribe others to public channels; guests never
    assert subscribe(realm.member, "general", realm.guest).ok
    assert "guests cannot subscribe" in error(subscribe(realm.guest, "general", other))
    # WHEN only administrators may, THEN a member can still join but not add others
    set_realm_settings(realm.realm_id, can_add_subscribers_group=ADMINS)
    assert "Insufficient permission" in error(subscribe(realm.member, "general", other))
    assert subscribe(realm.moderator, "general").ok
    # AND the channel's own add-subscribers and administer groups grant it
    assert patch(realm.admin, stream_id, can_add_subscribers_group=only(
        realm.member.user_id)).ok
    assert subscribe(realm.member, "general", other).ok
    assert patch(realm.admin, stream_id, can_administer_channel_group=only(
        realm.moderator.user_id)).ok
    assert subscribe(realm.moderator, "general", realm.owner).ok
    assert len(realm.admin.get(f"/streams/{stream_id}/members").json["subscribers"]) == 5


def test_archived_channels_take_no_subscribers(realm):
    stream_id = channel(realm.admin, "general", [realm.admin])
    assert realm.admin.delete(f"/streams/{stream_id}").ok
    assert error(subscribe(realm.member, "general")) == \
        "Channel general does not exist, or you cannot see it."
    assert error(subscribe(realm.admin, "general", realm.member)) == (
        "Channel general does not exist, or you cannot see it.")


def test_private_channel_groups_grant_access_without_a_subscription(realm):
    other = realm.add_user("Other Member")
    private_id = channel(realm.owner, "secret", [realm.owner], invite_only=True)
    assert error(realm.member.get(f"/streams/{private_id}")) == "No channel you can see has that ID."
    assert error(realm.moderator.get(f"/streams/{private_id}")) == "No channel you can see has that ID."
    # WHEN the member may add subscribers and the moderator administers it
    assert patch(realm.owner, private_id, can_add_subscribers_group=only(
        realm.member.user_id), can_administer_channel_group=only(
        realm.owner.user_id, realm.moderator.user_id)).ok
    # THEN both see it; the member may add subscribers without being one (content
    # access), the moderator only administers its metadata
    assert stream(realm.member, private_id)["name"] == "secret"
    assert stream(realm.moderator, private_id)["name"] == "secret"
    assert subscribe(realm.member, "secret", other).ok
    assert patch(realm.moderator, private_id, description="about").ok
    assert error(patch(realm.moderator, private_id, is_private=False)) == (
        "Channel content access is required.")
    # AND guests get nothing through groups
    assert patch(realm.owner, private_id, can_administer_channel_group=only(
        realm.owner.user_id, realm.guest.user_id)).ok
    assert error(realm.guest.get(f"/streams/{private_id}")) == "No channel you can see has that ID."

