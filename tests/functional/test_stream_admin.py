"""PATCH /streams/{stream_id} (§4.4): who may administer, name, description, privacy, and
who hears of each change."""
from __future__ import annotations

from chalicelib import config
from tests.functional.edit_helpers import channel
from tests.functional.stream_admin_helpers import (
    ADMINS,
    EVERYONE,
    MEMBERS,
    error,
    only,
    patch,
    set_realm_settings,
    stream,
    stream_events,
)

# --- who may administer ------------------------------------------------------------------


def test_nothing_given_is_refused(realm):
    stream_id = channel(realm.admin, "general")
    assert "No channel properties" in error(patch(realm.admin, stream_id))


def test_unknown_channel_and_unseen_private_channel_look_the_same(realm):
    private_id = channel(realm.admin, "secret", invite_only=True)
    missing = error(patch(realm.member, 999999, description="x"))
    assert missing == "No channel you can see has that ID."
    assert error(patch(realm.member, private_id, description="x")) == missing
    # Guests see no public channel they are not subscribed to.
    public_id = channel(realm.admin, "general")
    assert error(patch(realm.guest, public_id, description="x")) == missing


def test_the_creator_administers_by_default_others_do_not(realm):
    # GIVEN a channel a member created, with a moderator subscribed
    stream_id = channel(realm.member, "general", [realm.member, realm.moderator])
    # THEN its administer group is the creator, as in the reference
    assert stream(realm.member, stream_id)["can_administer_channel_group"] == only(
        realm.member.user_id)
    assert patch(realm.member, stream_id, description="mine").ok
    # AND the moderator may not, organization administrators may
    assert "permission to administer" in error(patch(realm.moderator, stream_id,
                                                     description="x"))
    assert patch(realm.admin, stream_id, description="theirs").ok
    assert stream(realm.member, stream_id)["description"] == "theirs"


def test_channel_administer_group_grants_administering(realm):
    # GIVEN the member is put into the channel's administer group by an admin
    stream_id = channel(realm.admin, "general", [realm.admin])
    assert patch(realm.admin, stream_id, can_administer_channel_group={
        "new": only(realm.member.user_id), "old": only(realm.admin.user_id)}).ok
    # WHEN the member renames it, THEN it works; the moderator (not in it) still cannot
    assert patch(realm.member, stream_id, new_name="renamed").ok
    assert stream(realm.member, stream_id)["name"] == "renamed"
    assert "permission to administer" in error(patch(realm.moderator, stream_id,
                                                     description="x"))
    # AND a private channel's administrator sees and edits its metadata unsubscribed
    private_id = channel(realm.admin, "secret", [realm.admin], invite_only=True)
    assert patch(realm.admin, private_id, can_administer_channel_group={
        "new": {"direct_members": [realm.member.user_id], "direct_subgroups": [ADMINS]}}).ok
    assert patch(realm.member, private_id, description="hidden things").ok
    assert stream(realm.member, private_id)["description"] == "hidden things"


def test_guests_never_administer(realm):
    stream_id = channel(realm.admin, "general", [realm.admin, realm.guest])
    # A guest named in the administer group still may not; everyone is not a valid value
    assert patch(realm.admin, stream_id, can_administer_channel_group={
        "new": only(realm.guest.user_id, realm.admin.user_id)}).ok
    assert "permission to administer" in error(patch(realm.guest, stream_id,
                                                     description="x"))
    for setting in ("can_administer_channel_group", "can_add_subscribers_group"):
        assert "cannot use the group 'role:everyone'" in error(patch(
            realm.admin, stream_id, **{setting: {"new": EVERYONE}}))


def test_private_channel_permissions_need_content_access_even_for_admins(realm):
    # GIVEN a private channel the admin is not subscribed to
    private_id = channel(realm.owner, "secret", [realm.owner], invite_only=True)
    # THEN the admin can change its metadata and metadata-level settings
    assert patch(realm.admin, private_id, description="about", topics_policy="inherit").ok
    for setting in ("can_remove_subscribers_group", "can_delete_own_message_group",
                    "can_administer_channel_group"):
        assert patch(realm.admin, private_id, **{setting: {"new": MEMBERS}}).ok, setting
    # BUT not its privacy or the settings that need content access (§4.4)
    for params in ({"is_private": False}, {"history_public_to_subscribers": False},
                   {"is_web_public": False}, {"can_add_subscribers_group": MEMBERS},
                   {"can_delete_any_message_group": MEMBERS},
                   {"can_move_messages_out_of_channel_group": MEMBERS}):
        assert error(patch(realm.admin, private_id, **params)) == (
            "Channel content access is required."), params
    # AND the add-subscribers group grants content access without a subscription
    assert patch(realm.owner, private_id, can_add_subscribers_group=only(
        realm.admin.user_id)).ok
    assert patch(realm.admin, private_id, history_public_to_subscribers=True).ok
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
    assert [e for e in stream_events(fetch_events(realm.member, queue_id))
            if e["op"] == "update"] == [
        {"type": "stream", "op": "update", "stream_id": stream_id, "name": "general",
         "property": "name", "value": "lobby"}]
    # AND names stay unique (case-insensitive), while a case-only change is a rename
    assert error(patch(realm.admin, stream_id, new_name="TAKEN"),
                 "CHANNEL_ALREADY_EXISTS") == "Channel 'TAKEN' already exists"
    assert "already called that" in error(patch(realm.admin, stream_id, new_name="lobby"))
    assert patch(realm.admin, stream_id, new_name="Lobby").ok
    assert realm.admin.get("/get_stream_id", {"stream": "lobby"}).json["stream_id"] == stream_id
    assert stream(realm.admin, stream_id)["name"] == "Lobby"


def test_rename_race_is_refused_by_the_name_claim(realm, monkeypatch):
    # GIVEN another channel takes the name after this request checked it was free
    from chalicelib.actions.channels import admin as stream_admin
    stream_id = channel(realm.admin, "general")
    other_id = channel(realm.admin, "lobby")
    checked = iter([None])
    real = stream_admin.stream_id_by_name
    monkeypatch.setattr(stream_admin, "stream_id_by_name",
                        lambda realm_id, name: next(checked, real(realm_id, name)))
    # WHEN renamed to it, THEN the claim's condition refuses it and nothing changed
    assert error(patch(realm.admin, stream_id, new_name="lobby"),
                 "CHANNEL_ALREADY_EXISTS") == "Channel 'lobby' already exists"
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
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    assert patch(realm.admin, stream_id, description="**bold**\ntalk").ok
    data = stream(realm.admin, stream_id)
    assert data["description"] == "**bold** talk"   # one line, as the reference keeps it
    assert data["rendered_description"] == "<p><strong>bold</strong> talk</p>"
    drain_events()
    assert stream_events(fetch_events(realm.member, queue_id)) == [{
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
    # AND a real change after them is the queue's only event (the queue does hear changes)
    assert patch(realm.admin, stream_id, description="changed").ok
    drain_events()
    assert [(e["property"], e["value"]) for e in stream_events(
        fetch_events(realm.admin, queue_id))] == [("description", "changed")]


# --- privacy and who hears of it ----------------------------------------------------------

def test_making_private_protects_history_and_deletes_it_for_those_losing_sight(
        realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.admin, "general", [realm.admin])
    drain_events()
    accounts = (realm.admin, realm.owner, realm.member, realm.guest)
    queues = [register_queue(a, event_types=["stream"])["queue_id"] for a in accounts]
    # WHEN the public channel becomes private, history not mentioned
    assert patch(realm.admin, stream_id, is_private=True).ok
    # THEN its history is protected, as the reference defaults private channels
    data = stream(realm.admin, stream_id)
    assert (data["invite_only"], data["history_public_to_subscribers"]) == (True, False)
    # AND the subscriber and administrators get the updates, in the reference's shape;
    # the member, who no longer sees it, gets a delete; the guest never saw it
    drain_events()
    base = {"type": "stream", "op": "update", "stream_id": stream_id, "name": "general"}
    updates = [{**base, "property": "invite_only", "value": True,
                "history_public_to_subscribers": False, "is_web_public": False},
               {**base, "property": "history_public_to_subscribers", "value": False}]
    got = [stream_events(fetch_events(a, q)) for a, q in zip(accounts, queues, strict=False)]
    assert got == [updates, updates, [{"type": "stream", "op": "delete",
                                       "streams": [{"stream_id": stream_id}],
                                       "stream_ids": [stream_id]}], []]


def test_making_public_creates_it_for_those_gaining_sight(realm, register_queue,
                                                          fetch_events, drain_events):
    stream_id = channel(realm.member, "secret", [realm.member], invite_only=True)
    drain_events()
    accounts = (realm.member, realm.owner, realm.moderator, realm.guest)
    queues = [register_queue(a, event_types=["stream"])["queue_id"] for a in accounts]
    # WHEN its creator makes it public
    assert patch(realm.member, stream_id, is_private=False).ok
    assert stream(realm.moderator, stream_id)["history_public_to_subscribers"] is True
    drain_events()
    got = [stream_events(fetch_events(a, q)) for a, q in zip(accounts, queues, strict=False)]
    # THEN those who saw it get updates; the moderator first learns it exists
    assert [[(e["op"], e.get("property")) for e in events] for events in got] == [
        [("update", "invite_only"), ("update", "history_public_to_subscribers")],
        [("update", "invite_only"), ("update", "history_public_to_subscribers")],
        [("create", None), ("update", "invite_only"),
         ("update", "history_public_to_subscribers")],
        []]
    [created] = got[2][0]["streams"]
    assert (created["stream_id"], created["invite_only"]) == (stream_id, False)


def test_privacy_follows_the_realms_channel_creation_groups(realm):
    stream_id = channel(realm.member, "general", [realm.member])
    set_realm_settings(realm.realm_id, can_create_private_channel_group=ADMINS)
    assert error(patch(realm.member, stream_id, is_private=True)) == "You are not allowed to do this."
    assert patch(realm.admin, stream_id, is_private=True).ok
    set_realm_settings(realm.realm_id, can_create_public_channel_group=ADMINS)
    assert error(patch(realm.member, stream_id, is_private=False)) == "You are not allowed to do this."
    assert stream(realm.member, stream_id)["invite_only"] is True


def test_private_channel_events_reach_subscribers_and_administrators_only(
        realm, register_queue, fetch_events, drain_events):
    private_id = channel(realm.member, "secret", [realm.member], invite_only=True)
    other = realm.add_user("Other Member")
    # The channel's administer group names the moderator too
    assert patch(realm.member, private_id, can_administer_channel_group=only(
        realm.member.user_id, realm.moderator.user_id)).ok
    drain_events()
    accounts = (realm.member, realm.owner, realm.moderator, other, realm.guest)
    queues = [register_queue(a, event_types=["stream"])["queue_id"] for a in accounts]
    # WHEN an admin (not subscribed) changes its description
    assert patch(realm.admin, private_id, description="d").ok
    # THEN the subscriber, the other administrators and the channel administrator are
    # told; the other member and the guest are not
    drain_events()
    got = [[e["property"] for e in stream_events(fetch_events(a, q))]
           for a, q in zip(accounts, queues, strict=False)]
    assert got == [["description"], ["description"], ["description"], [], []]


def test_history_must_stay_public_for_public_and_web_public_channels(realm):
    stream_id = channel(realm.admin, "general", [realm.admin])
    for params in ({"history_public_to_subscribers": False},
                   {"is_private": False, "history_public_to_subscribers": False}):
        assert error(patch(realm.admin, stream_id, **params)) == "Those settings cannot be combined."
    assert stream(realm.admin, stream_id)["history_public_to_subscribers"] is True
    # A private channel may protect its history, and make it public again
    private_id = channel(realm.admin, "secret", [realm.admin], invite_only=True,
                         history_public_to_subscribers=True)
    assert patch(realm.admin, private_id, history_public_to_subscribers=False).ok
    assert stream(realm.admin, private_id)["history_public_to_subscribers"] is False
    assert patch(realm.admin, private_id, history_public_to_subscribers=True).ok
    assert stream(realm.admin, private_id)["history_public_to_subscribers"] is True
    # Turning public with protected history is refused
    assert error(patch(realm.admin, private_id, is_private=False,
                       history_public_to_subscribers=False)) == "Those settings cannot be combined."


def test_web_public_needs_server_realm_and_group_permission(realm, monkeypatch,
                                                            register_queue, fetch_events,
                                                            drain_events):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.admin])
    # Spectator access is off by default; the server setting can forbid it too
    assert error(patch(realm.owner, stream_id, is_web_public=True)) == (
        "This organization does not allow web-public channels.")
    set_realm_settings(realm.realm_id, enable_spectator_access=True)
    monkeypatch.setenv("WEB_PUBLIC_STREAMS_ENABLED", "false")
    assert error(patch(realm.owner, stream_id, is_web_public=True)) == (
        "This organization does not allow web-public channels.")
    monkeypatch.delenv("WEB_PUBLIC_STREAMS_ENABLED")
    # Only owners may create web-public channels by default; never private ones
    assert error(patch(realm.admin, stream_id, is_web_public=True)) == "You are not allowed to do this."
    assert error(patch(realm.owner, stream_id, is_web_public=True,
                       is_private=True)) == "Those settings cannot be combined."
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    assert patch(realm.owner, stream_id, is_web_public=True).ok
    assert stream(realm.owner, stream_id)["is_web_public"] is True
    drain_events()
    assert stream_events(fetch_events(realm.member, queue_id)) == [{
        "type": "stream", "op": "update", "stream_id": stream_id, "name": "general",
        "property": "is_web_public", "value": True}]
    # Guests can read a web-public channel without a subscription
    assert stream(realm.guest, stream_id)["name"] == "general"
    # It keeps public history, and stays public unless web-public access ends with it
    assert error(patch(realm.owner, stream_id, history_public_to_subscribers=False)) == (
        "Those settings cannot be combined.")
    assert error(patch(realm.owner, stream_id, is_private=True)) == "Those settings cannot be combined."
    assert patch(realm.owner, stream_id, is_private=True, is_web_public=False).ok
    data = stream(realm.owner, stream_id)
    assert (data["invite_only"], data["is_web_public"]) == (True, False)
    # The permission follows the realm's group setting
    set_realm_settings(realm.realm_id, enable_spectator_access=True,
                       can_create_web_public_channel_group=ADMINS)
    assert patch(realm.admin, stream_id, is_private=False, is_web_public=True).ok
    data = stream(realm.owner, stream_id)
    assert (data["invite_only"], data["is_web_public"],
            data["history_public_to_subscribers"]) == (False, True, True)
