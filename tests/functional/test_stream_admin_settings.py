"""PATCH /streams/{stream_id} (§4.4): default channels, retention, archiving (and DELETE),
folders, topics policy, the six group settings, and atomicity under concurrent changes."""
from __future__ import annotations

import pytest

from chalicelib.models.channel_folders import ChannelFolder
from chalicelib.models.channels import Stream
from chalicelib.models.realms import Realm
from tests.functional.edit_helpers import channel, send
from tests.functional.stream_admin_helpers import (
    ADMINS,
    MEMBERS,
    MODERATORS,
    error,
    folder,
    only,
    patch,
    stream,
    stream_events,
)

# --- default channels ---------------------------------------------------------------------


def test_default_channel(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    other_id = channel(realm.admin, "random", [realm.admin])
    # Channel administrators cannot: default channels are an organization matter
    assert patch(realm.admin, stream_id, can_administer_channel_group=MODERATORS).ok
    assert patch(realm.moderator, stream_id, description="d").ok
    assert "organization's administrators" in error(patch(realm.moderator, stream_id,
                                                       is_default_stream=True))
    drain_events()
    queue_id = register_queue(realm.member, event_types=["default_streams"])["queue_id"]
    guest_queue = register_queue(realm.guest, event_types=["default_streams"])["queue_id"]
    # WHEN two channels become default and one stops being default
    for target, value in ((stream_id, True), (other_id, True), (other_id, False)):
        assert patch(realm.admin, target, is_default_stream=value).ok
    # THEN the channel says so, registration lists it, and the events list the ids
    assert stream(realm.admin, stream_id)["is_default"] is True
    assert stream(realm.admin, other_id)["is_default"] is False
    state = register_queue(realm.member, fetch_event_types=["default_streams"])
    assert state["realm_default_streams"] == [stream_id]
    drain_events()
    assert stream_events(fetch_events(realm.member, queue_id)) == [
        {"type": "default_streams", "default_streams": ids}
        for ids in ([stream_id], sorted([stream_id, other_id]), [stream_id])]
    assert stream_events(fetch_events(realm.guest, guest_queue)) == []
    # AND a default channel cannot be private, nor a private one default
    assert "cannot be default channels" in error(patch(realm.admin, stream_id, is_private=True))
    private_id = channel(realm.admin, "secret", [realm.admin], invite_only=True)
    assert "cannot be default channels" in error(patch(realm.admin, private_id, is_default_stream=True))
    assert patch(realm.admin, stream_id, is_default_stream=False).ok
    assert register_queue(realm.member, fetch_event_types=["default_streams"])[
        "realm_default_streams"] == []


def test_concurrent_default_changes_do_not_lose_one(realm, monkeypatch):
    from chalicelib.actions.channels import admin as stream_admin
    first = channel(realm.admin, "general", [realm.admin])
    second = channel(realm.admin, "random", [realm.admin])
    # GIVEN a request that read the realm before another made `first` default
    stale = Realm.get(realm.realm_id)
    assert patch(realm.admin, first, is_default_stream=True).ok
    monkeypatch.setattr(stream_admin, "get_realm", lambda realm_id: stale)
    # WHEN it makes `second` default from that stale read, THEN it must try again
    assert "try again" in error(patch(realm.admin, second, is_default_stream=True), "CONFLICT")
    monkeypatch.undo()
    assert patch(realm.admin, second, is_default_stream=True).ok
    assert set(Realm.get(realm.realm_id).default_stream_ids) == {first, second}


def test_archiving_and_making_default_at_once_never_leave_an_archived_default(realm,
                                                                              monkeypatch):
    from chalicelib.actions.channels import admin as stream_admin
    first = channel(realm.admin, "general", [realm.admin])
    second = channel(realm.admin, "random", [realm.admin])
    # GIVEN a request that read `first` before another archived it
    stale = Stream.get(realm.realm_id, first)
    assert realm.admin.delete(f"/streams/{first}").ok
    monkeypatch.setattr(stream_admin, "get_stream", lambda realm_id, sid: stale)
    # WHEN it makes `first` default from that read, THEN it must try again
    assert "try again" in error(patch(realm.admin, first, is_default_stream=True), "CONFLICT")
    monkeypatch.undo()
    # GIVEN an archiving request that read the realm and `second` before another made
    # `second` default
    stale_realm, stale = Realm.get(realm.realm_id), Stream.get(realm.realm_id, second)
    assert patch(realm.admin, second, is_default_stream=True).ok
    monkeypatch.setattr(stream_admin, "get_stream", lambda realm_id, sid: stale)
    monkeypatch.setattr(stream_admin, "get_realm", lambda realm_id: stale_realm)
    # WHEN it archives `second`, THEN it must try again too
    assert "try again" in error(realm.admin.delete(f"/streams/{second}"), "CONFLICT")
    monkeypatch.undo()
    # AND no archived channel is left among the defaults
    assert set(Realm.get(realm.realm_id).default_stream_ids or ()) == {second}
    assert realm.admin.delete(f"/streams/{second}").ok
    assert not Realm.get(realm.realm_id).default_stream_ids


# --- retention ------------------------------------------------------------------------------

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
    assert [(e["property"], e["value"]) for e in stream_events(
        fetch_events(realm.owner, queue_id))] == [("message_retention_days", stored)]


def test_message_retention_days_rules(realm):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.admin])
    assert "organization's owners" in error(patch(realm.admin, stream_id,
                                               message_retention_days=30))
    for bad in (0, -5):
        assert "cannot be" in error(patch(realm.owner, stream_id, message_retention_days=bad))
    assert error(patch(realm.owner, stream_id, message_retention_days="forever"))
    assert stream(realm.owner, stream_id)["message_retention_days"] is None


# --- archiving --------------------------------------------------------------------------------

def test_archive_and_unarchive(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin, realm.member])
    send(realm.member, "general", "hi")
    assert patch(realm.admin, stream_id, is_default_stream=True).ok
    assert "permission to administer" in error(realm.member.delete(f"/streams/{stream_id}"))
    assert "No channel you can see has that ID." in error(realm.admin.delete("/streams/999999"))
    drain_events()
    new_client = register_queue(realm.member, event_types=["stream", "default_streams"],
                                client_capabilities={"archived_channels": True})["queue_id"]
    old_client = register_queue(realm.moderator, event_types=["stream"])["queue_id"]
    # WHEN archived
    assert realm.admin.delete(f"/streams/{stream_id}").ok
    # THEN it is archived and no longer default, and sending is refused
    data = stream(realm.admin, stream_id)
    assert (data["is_archived"], data["is_default"]) == (True, False)
    assert not realm.member.post("/messages", {"type": "stream", "to": "general",
                                               "topic": "t", "content": "x"}).ok
    assert "already archived" in error(realm.admin.delete(f"/streams/{stream_id}"))
    # AND clients with archived_channels get an update, the others a delete
    drain_events()
    base = {"type": "stream", "op": "update", "stream_id": stream_id, "name": "general",
            "property": "is_archived"}
    assert stream_events(fetch_events(realm.member, new_client)) == [
        {**base, "value": True}, {"type": "default_streams", "default_streams": []}]
    assert stream_events(fetch_events(realm.moderator, old_client)) == [
        {"type": "stream", "op": "delete", "streams": [{"stream_id": stream_id}],
         "stream_ids": [stream_id]}]
    # WHEN is_archived=true is sent, THEN it is refused: only unarchiving is supported;
    # an archived channel cannot become default either
    assert "only unarchiving" in error(patch(realm.admin, stream_id, is_archived=True))
    assert "archived channel" in error(patch(realm.admin, stream_id, is_default_stream=True))
    # WHEN unarchived
    last_new = fetch_events(realm.member, new_client)[-1]["id"]
    last_old = fetch_events(realm.moderator, old_client)[-1]["id"]
    assert patch(realm.admin, stream_id, is_archived=False).ok
    assert stream(realm.admin, stream_id)["is_archived"] is False
    send(realm.member, "general", "hi again")
    drain_events()
    assert stream_events(fetch_events(realm.member, new_client, last_new)) == [
        {**base, "value": False}]
    [created] = stream_events(fetch_events(realm.moderator, old_client, last_old))
    assert (created["op"], created["streams"][0]["stream_id"],
            created["streams"][0]["is_archived"]) == ("create", stream_id, False)
    assert "not archived" in error(patch(realm.admin, stream_id, is_archived=False))


def test_archive_by_channel_administrator(realm):
    stream_id = channel(realm.admin, "general", [realm.admin])
    assert patch(realm.admin, stream_id, can_administer_channel_group=MEMBERS).ok
    assert realm.member.delete(f"/streams/{stream_id}").ok
    assert stream(realm.admin, stream_id)["is_archived"] is True
    assert error(realm.guest.delete(f"/streams/{stream_id}")) == "No channel you can see has that ID."


# --- folders and topics policy ---------------------------------------------------------------

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
    assert [(e["property"], e["value"]) for e in stream_events(
        fetch_events(realm.member, queue_id))] == [("folder_id", folder_id), ("folder_id", None)]
    # Unknown and archived folders are refused
    assert "No channel folder has that ID" in error(patch(realm.admin, stream_id, folder_id=999))
    ChannelFolder(realm.realm_id, folder_id).update(actions=[ChannelFolder.is_archived.set(True)])
    assert "No channel folder has that ID" in error(patch(realm.admin, stream_id,
                                                      folder_id=folder_id))
    assert stream(realm.admin, stream_id)["folder_id"] is None


def test_topics_policy(realm, register_queue, fetch_events, drain_events, advertise):
    advertise(392)   # where channels have a topics_policy
    stream_id = channel(realm.admin, "general", [realm.admin])
    drain_events()
    queue_id = register_queue(realm.admin, event_types=["stream"])["queue_id"]
    for policy in ("allow_empty_topic", "disable_empty_topic", "inherit"):
        assert patch(realm.admin, stream_id, topics_policy=policy).ok
        assert stream(realm.admin, stream_id)["topics_policy"] == policy
    assert error(patch(realm.admin, stream_id, topics_policy="sometimes"))
    drain_events()
    assert [(e["property"], e["value"]) for e in stream_events(
        fetch_events(realm.admin, queue_id))] == [
        ("topics_policy", "allow_empty_topic"), ("topics_policy", "disable_empty_topic"),
        ("topics_policy", "inherit")]


def test_empty_topic_only_needs_every_message_in_the_empty_topic(realm, advertise):
    advertise(404)
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


# --- group settings -----------------------------------------------------------------------

@pytest.mark.parametrize("setting", [
    "can_add_subscribers_group", "can_remove_subscribers_group",
    "can_administer_channel_group", "can_delete_any_message_group",
    "can_delete_own_message_group", "can_move_messages_out_of_channel_group"])
def test_group_settings(realm, setting, register_queue, fetch_events, drain_events,
                        advertise):
    advertise(407)   # the level that defines the last of these on channels
    stream_id = channel(realm.admin, "general", [realm.admin])
    old = stream(realm.admin, stream_id)[setting]
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    # A stale old value is refused and changes nothing
    stale = MEMBERS if old != MEMBERS else ADMINS
    assert error(patch(realm.admin, stream_id, **{setting: {"new": MEMBERS, "old": stale}}),
                 "EXPECTATION_MISMATCH") == "'old' value does not match the expected value."
    # Unknown groups and users are refused
    assert "No user group with ID" in error(patch(realm.admin, stream_id,
                                                  **{setting: {"new": 99999}}))
    assert "No user with ID" in error(patch(realm.admin, stream_id, **{setting: {
        "new": {"direct_members": [99999], "direct_subgroups": []}}}))
    assert stream(realm.admin, stream_id)[setting] == old
    # A correct change is stored and told, as a group id or an anonymous group; an
    # anonymous group of one subgroup is that group, as in the reference
    anonymous = {"direct_members": [realm.member.user_id], "direct_subgroups": [ADMINS]}
    assert patch(realm.admin, stream_id, **{setting: {"new": MEMBERS, "old": old}}).ok
    assert stream(realm.admin, stream_id)[setting] == MEMBERS
    assert patch(realm.admin, stream_id, **{setting: {"new": anonymous, "old": MEMBERS}}).ok
    assert stream(realm.admin, stream_id)[setting] == anonymous
    assert patch(realm.admin, stream_id, **{setting: {
        "new": {"direct_members": [], "direct_subgroups": [ADMINS]}, "old": anonymous}}).ok
    assert stream(realm.admin, stream_id)[setting] == ADMINS
    drain_events()
    base = {"type": "stream", "op": "update", "stream_id": stream_id, "name": "general"}
    assert stream_events(fetch_events(realm.member, queue_id)) == [
        {**base, "property": setting, "value": value} for value in (MEMBERS, anonymous, ADMINS)]


def test_a_stale_old_value_loses_to_a_concurrent_change(realm, monkeypatch, advertise):
    from chalicelib.actions.channels import admin as stream_admin
    stream_id = channel(realm.admin, "general", [realm.admin])
    # GIVEN a request that read the channel before another administrator's change
    stale = Stream.get(realm.realm_id, stream_id)
    assert patch(realm.admin, stream_id, can_remove_subscribers_group={
        "new": MODERATORS, "old": ADMINS}).ok
    monkeypatch.setattr(stream_admin, "get_stream", lambda realm_id, sid: stale)
    # WHEN it changes the same setting with the `old` it read, THEN the write refuses it
    assert "try again" in error(patch(realm.admin, stream_id, can_remove_subscribers_group={
        "new": MEMBERS, "old": ADMINS}), "CONFLICT")
    monkeypatch.undo()
    assert stream(realm.admin, stream_id)["can_remove_subscribers_group"] == MODERATORS
    # AND a concurrent change of another setting does not overwrite this one
    stale = Stream.get(realm.realm_id, stream_id)
    assert patch(realm.admin, stream_id, can_delete_own_message_group=MEMBERS).ok
    monkeypatch.setattr(stream_admin, "get_stream", lambda realm_id, sid: stale)
    assert patch(realm.admin, stream_id, can_remove_subscribers_group=ADMINS).ok
    monkeypatch.undo()
    advertise(407)   # again: undo() took it back too
    data = stream(realm.admin, stream_id)
    assert (data["can_remove_subscribers_group"], data["can_delete_own_message_group"]) == (
        ADMINS, MEMBERS)


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
                 folder_id=folder_id, can_remove_subscribers_group=only(
                     realm.member.user_id)).ok
    drain_events()
    events = stream_events(fetch_events(realm.member, queue_id))
    assert [e["property"] for e in events] == ["name", "description", "folder_id",
                                              "can_remove_subscribers_group"]
    assert [e["name"] for e in events] == ["general", "renamed", "renamed", "renamed"]


def test_channel_events_are_told_in_the_channel_unless_turned_off(realm, advertise):
    advertise(434)
    from tests.functional.edit_helpers import channel as make_channel
    stream_id = make_channel(realm.owner, "plans", [realm.owner, realm.member])

    def notices() -> list[tuple[str, str]]:
        messages = realm.member.get("/messages", {
            "anchor": "newest", "num_before": 20, "num_after": 0, "apply_markdown": False,
            "narrow": [{"operator": "channel", "operand": stream_id}]}).json["messages"]
        return [(m["subject"], m["content"]) for m in messages
                if m["sender_full_name"] == "Notification Bot"]

    owner = f"@_**Olivia Owner|{realm.owner.user_id}**"
    # WHEN the channel is renamed and described, THEN its readers are told (level 434)
    assert patch(realm.owner, stream_id, new_name="roadmap", description="What comes next").ok
    assert notices() == [
        ("channel events", f"{owner} renamed this channel from **plans** to **roadmap**."),
        ("channel events", f"{owner} changed this channel's description.\n\n**Before:**\n"
                           "*No description.*\n\n**After:**\n> What comes next")]
    assert patch(realm.owner, stream_id, is_private=True).ok
    assert notices()[-1][1] == (f"{owner} changed who can see this channel: it is now "
                                "private; new subscribers see only messages sent after "
                                "they join.")
    # WHEN the organization turns them off, THEN nothing more is told
    assert realm.admin.patch("/realm", {"send_channel_events_messages": False}).ok
    state = realm.member.post("/register", {"fetch_event_types": ["realm"]}).json
    assert state["realm_send_channel_events_messages"] is False
    assert patch(realm.owner, stream_id, new_name="later").ok
    assert len(notices()) == 3
