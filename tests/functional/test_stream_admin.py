"""PATCH /streams/{stream_id} (§4.4) and DELETE /streams/{stream_id}: rules and events."""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib import config
from chalicelib.actions.realms import system_group_id
from chalicelib.models.invitations import ChannelFolder
from chalicelib.models.realms import Realm
from tests.functional.edit_helpers import channel, send

ADMINS = system_group_id("role:administrators")
MEMBERS = system_group_id("role:members")
NOBODY = system_group_id("role:nobody")


def stream(account, stream_id: int) -> dict[str, Any]:
    response = account.get(f"/streams/{stream_id}")
    assert response.ok, response.json
    return response.json["stream"]


def patch(account, stream_id: int, **params: Any):
    return account.patch(f"/streams/{stream_id}", params)


def error(response) -> str:
    assert response.status == 400 and response.json["result"] == "error", response.json
    assert response.json["code"] == "BAD_REQUEST", response.json
    return response.json["msg"]


def updates(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "id"} for e in events
            if e["type"] == "stream"]


def set_realm_settings(realm_id: int, **settings: Any) -> None:
    realm = Realm.get(realm_id)
    realm.update(actions=[Realm.settings.set({**realm.settings.as_dict(), **settings})])


def folder(account, name: str = "Engineering") -> int:
    response = account.post("/channel_folders/create", {"name": name})
    assert response.ok, response.json
    return response.json["channel_folder_id"]


# --- permissions and access -------------------------------------------------------------

def test_nothing_given_is_refused(realm):
    stream_id = channel(realm.admin, "general")
    assert "No channel properties" in error(patch(realm.admin, stream_id))


def test_unknown_channel_and_unseen_private_channel_look_the_same(realm):
    private_id = channel(realm.admin, "secret", invite_only=True)
    missing = error(patch(realm.member, 999999, description="x"))
    assert missing == "Invalid channel ID"
    assert error(patch(realm.member, private_id, description="x")) == missing
    # Guests see no public channel they are not subscribed to.
    public_id = channel(realm.admin, "general")
    assert error(patch(realm.guest, public_id, description="x")) == missing


def test_members_and_moderators_cannot_administer_by_default(realm):
    stream_id = channel(realm.member, "general", [realm.member, realm.moderator])
    for account in (realm.member, realm.moderator):
        assert "permission to administer" in error(patch(account, stream_id, description="x"))
    assert stream(realm.member, stream_id)["description"] == ""


def test_channel_administer_group_grants_administering(realm):
    # GIVEN the member is put into the channel's administer group by an admin
    stream_id = channel(realm.admin, "general", [realm.admin])
    assert patch(realm.admin, stream_id, can_administer_channel_group={
        "new": {"direct_members": [realm.member.user_id], "direct_subgroups": []},
        "old": NOBODY}).ok
    # WHEN the member renames it, THEN it works; the moderator (not in it) still cannot
    assert patch(realm.member, stream_id, new_name="renamed").ok
    assert stream(realm.member, stream_id)["name"] == "renamed"
    assert "permission to administer" in error(patch(realm.moderator, stream_id,
                                                     description="x"))
    # AND a private channel's administrator sees and edits its metadata unsubscribed
    private_id = channel(realm.admin, "secret", [realm.admin], invite_only=True)
    assert patch(realm.admin, private_id, can_administer_channel_group={
        "new": {"direct_members": [realm.member.user_id], "direct_subgroups": []}}).ok
    assert patch(realm.member, private_id, description="hidden things").ok


def test_private_channel_permissions_need_a_subscription_even_for_admins(realm):
    # GIVEN a private channel the admin is not subscribed to
    private_id = channel(realm.member, "secret", [realm.member], invite_only=True)
    # THEN the admin can change metadata (description, name, remove-subscribers group)
    assert patch(realm.admin, private_id, description="about").ok
    assert patch(realm.admin, private_id, can_remove_subscribers_group=MEMBERS).ok
    # BUT not privacy or content-access permissions
    for params in ({"is_private": False}, {"history_public_to_subscribers": False},
                   {"can_add_subscribers_group": MEMBERS},
                   {"can_delete_any_message_group": MEMBERS},
                   {"can_delete_own_message_group": MEMBERS},
                   {"can_move_messages_out_of_channel_group": MEMBERS}):
        assert "must be subscribed" in error(patch(realm.admin, private_id, **params)), params
    # AND once subscribed, the admin can
    channel(realm.admin, "secret")
    assert patch(realm.admin, private_id, is_private=False).ok
    assert stream(realm.admin, private_id)["invite_only"] is False


# --- name and description ---------------------------------------------------------------

def test_rename_moves_the_name_claim(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin, realm.member])
    channel(realm.admin, "taken")
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    # WHEN renamed
    assert patch(realm.admin, stream_id, new_name="  lobby ").ok
    # THEN the old name is free, the new one names this channel, and a name event went out
    assert realm.admin.get("/get_stream_id", {"stream": "lobby"}).json["stream_id"] == stream_id
    assert not realm.admin.get("/get_stream_id", {"stream": "general"}).ok
    assert channel(realm.admin, "general") != stream_id
    drain_events()
    assert [e for e in updates(fetch_events(realm.member, queue_id)) if e["op"] == "update"
            ] == [{"type": "stream", "op": "update", "stream_id": stream_id, "name": "general",
                   "property": "name", "value": "lobby"}]
    # AND names stay unique (case-insensitive), while a case-only change is a rename
    assert "already in use" in error(patch(realm.admin, stream_id, new_name="TAKEN"))
    assert "already has that name" in error(patch(realm.admin, stream_id, new_name="lobby"))
    assert patch(realm.admin, stream_id, new_name="Lobby").ok
    assert realm.admin.get("/get_stream_id", {"stream": "lobby"}).json["stream_id"] == stream_id
    assert stream(realm.admin, stream_id)["name"] == "Lobby"


def test_rename_race_is_refused_by_the_name_claim(realm, monkeypatch):
    # GIVEN another channel takes the name after this request checked it was free
    from chalicelib.actions import stream_admin
    stream_id = channel(realm.admin, "general")
    other_id = channel(realm.admin, "lobby")
    monkeypatch.setattr(stream_admin, "stream_id_by_name", lambda realm_id, name: None)
    # WHEN renamed to it, THEN the claim's condition refuses it and nothing changed
    assert "already in use" in error(patch(realm.admin, stream_id, new_name="lobby"))
    assert stream(realm.admin, stream_id)["name"] == "general"
    assert realm.admin.get("/get_stream_id", {"stream": "lobby"}).json["stream_id"] == other_id
    assert realm.admin.get("/get_stream_id", {"stream": "general"}).json["stream_id"] == stream_id


def test_rename_limits(realm):
    stream_id = channel(realm.admin, "general")
    too_long = "x" * (config.MAX_STREAM_NAME_LENGTH + 1)
    assert "too long" in error(patch(realm.admin, stream_id, new_name=too_long))
    assert "empty" in error(patch(realm.admin, stream_id, new_name="   "))
    assert patch(realm.admin, stream_id, new_name="x" * config.MAX_STREAM_NAME_LENGTH).ok


def test_description_is_rendered_and_limited(realm, register_queue, fetch_events,
                                             drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"],
                              all_public_streams=True)["queue_id"]
    assert patch(realm.admin, stream_id, description="**bold** talk").ok
    data = stream(realm.admin, stream_id)
    assert data["description"] == "**bold** talk"
    assert data["rendered_description"] == "<p><strong>bold</strong> talk</p>"
    drain_events()
    assert updates(fetch_events(realm.member, queue_id)) == [{
        "type": "stream", "op": "update", "stream_id": stream_id, "name": "general",
        "property": "description", "value": "**bold** talk",
        "rendered_description": "<p><strong>bold</strong> talk</p>"}]
    too_long = "x" * (config.MAX_STREAM_DESCRIPTION_LENGTH + 1)
    assert "too long" in error(patch(realm.admin, stream_id, description=too_long))
    assert patch(realm.admin, stream_id,
                 description="x" * config.MAX_STREAM_DESCRIPTION_LENGTH).ok


def test_unchanged_values_write_no_event(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    assert patch(realm.admin, stream_id, description="same").ok
    drain_events()
    queue_id = register_queue(realm.admin, event_types=["stream"])["queue_id"]
    assert patch(realm.admin, stream_id, description="same", is_private=False,
                 topics_policy="inherit", can_remove_subscribers_group=ADMINS).ok
    drain_events()
    assert updates(fetch_events(realm.admin, queue_id)) == []


# --- privacy --------------------------------------------------------------------------

def test_privacy_change_events_reach_everyone_who_could_see(realm, register_queue,
                                                            fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    drain_events()
    member_queue = register_queue(realm.member, event_types=["stream"])["queue_id"]
    guest_queue = register_queue(realm.guest, event_types=["stream"])["queue_id"]
    # WHEN the public channel becomes private with protected history
    assert patch(realm.admin, stream_id, is_private=True,
                 history_public_to_subscribers=False).ok
    data = stream(realm.admin, stream_id)
    assert (data["invite_only"], data["history_public_to_subscribers"]) == (True, False)
    # THEN members (who could see it before) are told, in the reference's shape
    drain_events()
    base = {"type": "stream", "op": "update", "stream_id": stream_id, "name": "general"}
    assert updates(fetch_events(realm.member, member_queue)) == [
        {**base, "property": "invite_only", "value": True,
         "history_public_to_subscribers": False, "is_web_public": False},
        {**base, "property": "history_public_to_subscribers", "value": False}]
    # AND the unsubscribed guest, who never saw it, is not
    assert updates(fetch_events(realm.guest, guest_queue)) == []
    # WHEN it becomes public again, history turns public with it
    assert patch(realm.admin, stream_id, is_private=False).ok
    data = stream(realm.admin, stream_id)
    assert (data["invite_only"], data["history_public_to_subscribers"]) == (False, True)


def test_private_channel_events_go_to_subscribers_and_admins_only(realm, register_queue,
                                                                  fetch_events, drain_events):
    private_id = channel(realm.member, "secret", [realm.member], invite_only=True)
    drain_events()
    accounts = (realm.member, realm.owner, realm.moderator)
    queues = [register_queue(a, event_types=["stream"])["queue_id"] for a in accounts]
    # WHEN an admin (not subscribed) changes its description
    assert patch(realm.admin, private_id, description="d").ok
    # THEN the subscriber and the other administrators are told; the moderator is not
    drain_events()
    got = [[e["property"] for e in updates(fetch_events(a, q))]
           for a, q in zip(accounts, queues)]
    assert got == [["description"], ["description"], []]


def test_history_must_stay_public_for_public_and_web_public_channels(realm):
    stream_id = channel(realm.admin, "general", [realm.admin])
    assert "Invalid parameters" in error(patch(realm.admin, stream_id,
                                               history_public_to_subscribers=False))
    assert "Invalid parameters" in error(patch(realm.admin, stream_id, is_private=False,
                                               history_public_to_subscribers=False))
    assert stream(realm.admin, stream_id)["history_public_to_subscribers"] is True
    # A private channel may protect its history, and make it public again
    private_id = channel(realm.admin, "secret", [realm.admin], invite_only=True)
    assert patch(realm.admin, private_id, history_public_to_subscribers=False).ok
    assert stream(realm.admin, private_id)["history_public_to_subscribers"] is False
    assert patch(realm.admin, private_id, history_public_to_subscribers=True).ok
    assert stream(realm.admin, private_id)["history_public_to_subscribers"] is True


def test_web_public_needs_spectator_access_permission_and_no_privacy(
        realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.admin])
    # Spectator access is off by default
    assert "not enabled" in error(patch(realm.owner, stream_id, is_web_public=True))
    set_realm_settings(realm.realm_id, enable_spectator_access=True)
    # Only owners may create web-public channels by default
    assert error(patch(realm.admin, stream_id, is_web_public=True)) == "Insufficient permission"
    # It cannot also be private
    assert "Invalid parameters" in error(patch(realm.owner, stream_id, is_web_public=True,
                                               is_private=True))
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    assert patch(realm.owner, stream_id, is_web_public=True).ok
    assert stream(realm.owner, stream_id)["is_web_public"] is True
    drain_events()
    assert updates(fetch_events(realm.member, queue_id)) == [{
        "type": "stream", "op": "update", "stream_id": stream_id, "name": "general",
        "property": "is_web_public", "value": True}]
    # A web-public channel keeps public history
    assert "Invalid parameters" in error(patch(realm.owner, stream_id,
                                               history_public_to_subscribers=False))
    # Making it private ends web-public access
    assert patch(realm.owner, stream_id, is_private=True).ok
    data = stream(realm.owner, stream_id)
    assert (data["invite_only"], data["is_web_public"]) == (True, False)
    # The permission follows the realm's group setting
    set_realm_settings(realm.realm_id, enable_spectator_access=True,
                       can_create_web_public_channel_group=ADMINS)
    assert patch(realm.admin, stream_id, is_web_public=True).ok
    data = stream(realm.owner, stream_id)
    assert (data["invite_only"], data["is_web_public"]) == (False, True)


# --- default, retention, archive, folder, topics policy --------------------------------

def test_default_channel(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    # Channel administrators cannot: default channels are an organization matter
    assert patch(realm.admin, stream_id, can_administer_channel_group=MEMBERS).ok
    assert patch(realm.moderator, stream_id, description="d").ok
    assert "organization administrator" in error(patch(realm.moderator, stream_id,
                                                       is_default_stream=True))
    drain_events()
    queue_id = register_queue(realm.member, event_types=["default_streams"])["queue_id"]
    assert patch(realm.admin, stream_id, is_default_stream=True).ok
    assert stream(realm.admin, stream_id)["is_default"] is True
    drain_events()
    [event] = fetch_events(realm.member, queue_id)
    assert event["type"] == "default_streams"
    assert [s["stream_id"] for s in event["default_streams"]] == [stream_id]
    # A default channel cannot be private, and a private one cannot become default
    assert "cannot be private" in error(patch(realm.admin, stream_id, is_private=True))
    private_id = channel(realm.admin, "secret", [realm.admin], invite_only=True)
    assert "cannot be private" in error(patch(realm.admin, private_id, is_default_stream=True))
    assert patch(realm.admin, stream_id, is_default_stream=False).ok
    assert stream(realm.admin, stream_id)["is_default"] is False


@pytest.mark.parametrize("value, stored", [(30, 30), ("unlimited", -1),
                                           ("realm_default", None)])
def test_message_retention_days(realm, value, stored, register_queue, fetch_events,
                                drain_events):
    stream_id = channel(realm.owner, "general", [realm.owner])
    if stored is None:
        assert patch(realm.owner, stream_id, message_retention_days=7).ok
    drain_events()
    queue_id = register_queue(realm.owner, event_types=["stream"])["queue_id"]
    assert patch(realm.owner, stream_id, message_retention_days=value).ok
    assert stream(realm.owner, stream_id)["message_retention_days"] == stored
    drain_events()
    assert [(e["property"], e["value"]) for e in updates(fetch_events(realm.owner, queue_id))
            ] == [("message_retention_days", stored)]


def test_message_retention_days_rules(realm):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.admin])
    assert "organization owner" in error(patch(realm.admin, stream_id,
                                               message_retention_days=30))
    for bad in (0, -5):
        assert "Bad value" in error(patch(realm.owner, stream_id, message_retention_days=bad))
    assert error(patch(realm.owner, stream_id, message_retention_days="forever"))
    assert stream(realm.owner, stream_id)["message_retention_days"] is None


def test_archive_and_unarchive(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin, realm.member])
    send(realm.member, "general", "hi")
    assert "permission to administer" in error(realm.member.delete(f"/streams/{stream_id}"))
    assert "Invalid channel ID" in error(realm.admin.delete("/streams/999999"))
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    # WHEN archived
    assert realm.admin.delete(f"/streams/{stream_id}").ok
    # THEN it is archived, sending is refused, and the reference's event went out
    assert stream(realm.admin, stream_id)["is_archived"] is True
    refused = realm.member.post("/messages", {"type": "stream", "to": "general",
                                              "topic": "t", "content": "x"})
    assert not refused.ok
    assert "already archived" in error(realm.admin.delete(f"/streams/{stream_id}"))
    drain_events()
    assert updates(fetch_events(realm.member, queue_id)) == [{
        "type": "stream", "op": "delete", "streams": [{"stream_id": stream_id}],
        "stream_ids": [stream_id]}]
    # WHEN is_archived=true is sent, THEN it is refused: only unarchiving is supported
    assert "only unarchiving" in error(patch(realm.admin, stream_id, is_archived=True))
    # WHEN unarchived
    last = fetch_events(realm.member, queue_id)[-1]["id"]
    assert patch(realm.admin, stream_id, is_archived=False).ok
    assert stream(realm.admin, stream_id)["is_archived"] is False
    send(realm.member, "general", "hi again")
    drain_events()
    [created] = updates(fetch_events(realm.member, queue_id, last))
    assert (created["op"], created["streams"][0]["stream_id"],
            created["streams"][0]["is_archived"]) == ("create", stream_id, False)
    assert "not archived" in error(patch(realm.admin, stream_id, is_archived=False))


def test_archive_by_channel_administrator_and_default_removed(realm):
    stream_id = channel(realm.admin, "general", [realm.admin])
    assert patch(realm.admin, stream_id, is_default_stream=True,
                 can_administer_channel_group=MEMBERS).ok
    assert realm.member.delete(f"/streams/{stream_id}").ok
    data = stream(realm.admin, stream_id)
    assert (data["is_archived"], data["is_default"]) == (True, False)


def test_folder(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    folder_id = folder(realm.admin)
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    assert patch(realm.admin, stream_id, folder_id=folder_id).ok
    assert stream(realm.admin, stream_id)["folder_id"] == folder_id
    assert patch(realm.admin, stream_id, folder_id=None).ok
    assert stream(realm.admin, stream_id)["folder_id"] is None
    drain_events()
    assert [(e["property"], e["value"]) for e in updates(fetch_events(realm.member, queue_id))
            ] == [("folder_id", folder_id), ("folder_id", None)]
    # Unknown and archived folders are refused
    assert "Invalid channel folder ID" in error(patch(realm.admin, stream_id, folder_id=999))
    ChannelFolder(realm.realm_id, folder_id).update(actions=[ChannelFolder.is_archived.set(True)])
    assert "Invalid channel folder ID" in error(patch(realm.admin, stream_id,
                                                      folder_id=folder_id))
    assert stream(realm.admin, stream_id)["folder_id"] is None


def test_topics_policy(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    drain_events()
    queue_id = register_queue(realm.admin, event_types=["stream"])["queue_id"]
    for policy in ("allow_empty_topic", "disable_empty_topic", "inherit"):
        assert patch(realm.admin, stream_id, topics_policy=policy).ok
        assert stream(realm.admin, stream_id)["topics_policy"] == policy
    assert error(patch(realm.admin, stream_id, topics_policy="sometimes"))
    drain_events()
    assert [(e["property"], e["value"]) for e in updates(fetch_events(realm.admin, queue_id))
            ] == [("topics_policy", "allow_empty_topic"),
                  ("topics_policy", "disable_empty_topic"), ("topics_policy", "inherit")]


def test_empty_topic_only_needs_every_message_in_the_empty_topic(realm):
    stream_id = channel(realm.admin, "general", [realm.admin])
    # A channel without messages, or with empty-topic messages only, may switch
    assert patch(realm.admin, stream_id, topics_policy="empty_topic_only").ok
    assert patch(realm.admin, stream_id, topics_policy="inherit").ok
    send(realm.admin, "general", "")
    assert patch(realm.admin, stream_id, topics_policy="empty_topic_only").ok
    assert patch(realm.admin, stream_id, topics_policy="inherit").ok
    # One message in a named topic stops it
    send(realm.admin, "general", "named")
    assert "empty topic" in error(patch(realm.admin, stream_id,
                                        topics_policy="empty_topic_only"))
    assert stream(realm.admin, stream_id)["topics_policy"] == "inherit"


# --- group settings --------------------------------------------------------------------

@pytest.mark.parametrize("setting", [
    "can_add_subscribers_group", "can_remove_subscribers_group",
    "can_administer_channel_group", "can_delete_any_message_group",
    "can_delete_own_message_group", "can_move_messages_out_of_channel_group"])
def test_group_settings(realm, setting, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    old = stream(realm.admin, stream_id)[setting]
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    # A stale old value is refused and changes nothing
    stale = MEMBERS if old != MEMBERS else ADMINS
    assert "does not match" in error(patch(realm.admin, stream_id,
                                           **{setting: {"new": MEMBERS, "old": stale}}))
    # Unknown groups and users are refused
    assert "Invalid user group ID" in error(patch(realm.admin, stream_id,
                                                  **{setting: {"new": 99999}}))
    assert "Invalid user ID" in error(patch(realm.admin, stream_id, **{setting: {
        "new": {"direct_members": [99999], "direct_subgroups": []}}}))
    assert stream(realm.admin, stream_id)[setting] == old
    # A correct change is stored and told, with group ids or anonymous groups
    anonymous = {"direct_members": [realm.member.user_id], "direct_subgroups": [ADMINS]}
    assert patch(realm.admin, stream_id, **{setting: {"new": MEMBERS, "old": old}}).ok
    assert stream(realm.admin, stream_id)[setting] == MEMBERS
    assert patch(realm.admin, stream_id, **{setting: {"new": anonymous}}).ok
    assert stream(realm.admin, stream_id)[setting] == anonymous
    drain_events()
    base = {"type": "stream", "op": "update", "stream_id": stream_id, "name": "general"}
    assert updates(fetch_events(realm.member, queue_id)) == [
        {**base, "property": setting, "value": MEMBERS},
        {**base, "property": setting, "value": anonymous}]


def test_many_changes_in_one_request_are_one_transaction(realm, register_queue, fetch_events,
                                                         drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    folder_id = folder(realm.admin)
    # WHEN one part of a request is invalid, THEN nothing of it is applied
    assert error(patch(realm.admin, stream_id, new_name="renamed", description="d",
                       folder_id=12345))
    data = stream(realm.admin, stream_id)
    assert (data["name"], data["description"]) == ("general", "")
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    assert patch(realm.admin, stream_id, new_name="renamed", description="d",
                 folder_id=folder_id, can_remove_subscribers_group=MEMBERS).ok
    drain_events()
    events = updates(fetch_events(realm.member, queue_id))
    assert [e["property"] for e in events] == ["name", "description", "folder_id",
                                              "can_remove_subscribers_group"]
    assert [e["name"] for e in events] == ["general", "renamed", "renamed", "renamed"]
