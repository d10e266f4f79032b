"""Per-channel permissions to move, resolve and start topics (levels 396, 402, 441), and
who may change a channel's topics policy and delete-message groups (levels 392, 407)."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send
from tests.functional.stream_admin_helpers import (
    ADMINS,
    EVERYONE,
    NOBODY,
    error,
    only,
    patch,
    stream,
)

NEW_TOPIC_REFUSED = "You may post in existing topics of this channel, but not start new ones."


def move(account, message_id: int, **params):
    return account.patch(f"/messages/{message_id}", {"propagate_mode": "change_all",
                                                     **params})


def restrict_realm(account, **groups: int) -> None:
    response = account.patch("/realm", {name: {"new": value}
                                        for name, value in groups.items()})
    assert response.ok, response.json


def test_channel_groups_let_members_move_within_and_out_of_a_channel(realm, advertise):
    advertise(396)
    # GIVEN an organization where only administrators move topics and messages
    restrict_realm(realm.admin, can_move_messages_between_topics_group=ADMINS,
                   can_move_messages_between_channels_group=ADMINS)
    members = [realm.owner, realm.member, realm.moderator]
    source = channel(realm.owner, "source", members)
    target = channel(realm.owner, "target", members)
    message_id = send(realm.member, "source", "plans")
    assert error(move(realm.member, message_id, topic="renamed")) == (
        "You are not allowed to edit this message")
    assert error(move(realm.member, message_id, stream_id=target)) == (
        "You are not allowed to move this message")
    # WHEN the channel lets the member move messages within it (level 396)
    assert patch(realm.owner, source, can_move_messages_within_channel_group=only(
        realm.member.user_id)).ok
    # THEN the member renames the topic, but still cannot take it out of the channel
    assert move(realm.member, message_id, topic="renamed").ok
    assert error(move(realm.member, message_id, stream_id=target)) == (
        "You are not allowed to move this message")
    # AND the target's own within-channel group counts for a topic change into it
    assert patch(realm.owner, source, can_move_messages_out_of_channel_group=only(
        realm.member.user_id)).ok
    assert move(realm.member, message_id, stream_id=target).ok
    assert error(move(realm.moderator, message_id, topic="again")) == (
        "You are not allowed to edit this message")
    assert patch(realm.owner, target, can_move_messages_within_channel_group=only(
        realm.moderator.user_id)).ok
    assert move(realm.moderator, message_id, topic="again").ok
    # AND a channel administrator moves within the channel without being in the group
    assert patch(realm.owner, target, can_administer_channel_group=only(
        realm.owner.user_id, realm.member.user_id)).ok
    assert move(realm.member, message_id, topic="by the administrator").ok
    shown = stream(realm.member, target)
    assert shown["can_move_messages_within_channel_group"] == only(realm.moderator.user_id)


def test_a_channel_group_lets_members_resolve_topics(realm, advertise):
    advertise(402)
    restrict_realm(realm.admin, can_resolve_topics_group=ADMINS)
    stream_id = channel(realm.owner, "support", [realm.owner, realm.member, realm.guest])
    message_id = send(realm.guest, "support", "printer")
    assert error(move(realm.member, message_id, topic="✔ printer")) == (
        "You are not allowed to edit this message")
    # WHEN the channel lets everyone resolve its topics (level 402), guests included
    assert patch(realm.owner, stream_id, can_resolve_topics_group=EVERYONE).ok
    assert move(realm.guest, message_id, topic="✔ printer").ok
    assert move(realm.member, message_id, topic="printer").ok
    # THEN resolving is all it grants: renaming still needs the other permissions
    restrict_realm(realm.admin, can_move_messages_between_topics_group=ADMINS)
    assert error(move(realm.member, message_id, topic="scanner")) == (
        "You are not allowed to edit this message")
    assert stream(realm.member, stream_id)["can_resolve_topics_group"] == EVERYONE


def test_only_the_channels_topic_creators_start_new_topics(realm, advertise):
    advertise(441)
    bot = realm.add_user("Helper Bot", is_bot=True)   # owned by the owner
    stream_id = channel(realm.owner, "announcements",
                        [realm.owner, realm.member, realm.moderator, bot])
    existing = send(realm.member, "announcements", "weekly")
    assert stream(realm.member, stream_id)["can_create_topic_group"] == EVERYONE
    # WHEN only the owner may start topics (level 441)
    assert patch(realm.owner, stream_id, can_create_topic_group=only(
        realm.owner.user_id)).ok
    # THEN others post in existing topics (any case of their name) but start none
    send(realm.member, "announcements", "WEEKLY")
    refused = realm.member.post("/messages", {"type": "stream", "to": "announcements",
                                              "topic": "new", "content": "hi"})
    assert error(refused) == NEW_TOPIC_REFUSED
    send(realm.owner, "announcements", "new")
    # AND a bot may when its owner may
    send(bot, "announcements", "from the bot")
    # AND moving messages to a new topic is starting it; to an existing one is not
    assert error(move(realm.moderator, existing, topic="elsewhere")) == NEW_TOPIC_REFUSED
    assert move(realm.moderator, existing, topic="new").ok
    # AND nobody at all: not even the owner
    assert patch(realm.owner, stream_id, can_create_topic_group=NOBODY).ok
    assert error(realm.owner.post("/messages", {
        "type": "stream", "to": "announcements", "topic": "newer", "content": "x"})) == \
        NEW_TOPIC_REFUSED


def test_private_channels_with_protected_history_let_everyone_start_topics(realm):
    protected = channel(realm.owner, "vault", [realm.owner], invite_only=True)
    refused = patch(realm.owner, protected, can_create_topic_group=only(realm.owner.user_id))
    assert "must be role:everyone" in error(refused)
    # A public channel may restrict it, and then cannot become private with protected
    # history until it lets everyone again
    public = channel(realm.owner, "lobby", [realm.owner])
    assert patch(realm.owner, public, can_create_topic_group=ADMINS).ok
    assert "must be role:everyone" in error(patch(realm.owner, public, is_private=True))
    assert patch(realm.owner, public, is_private=True, can_create_topic_group=EVERYONE).ok


def test_topics_policy_and_delete_groups_need_the_organizations_setting_too(realm, advertise):
    advertise(407)
    stream_id = channel(realm.owner, "team", [realm.owner, realm.member, realm.moderator])
    assert patch(realm.owner, stream_id, can_administer_channel_group=only(
        realm.member.user_id, realm.moderator.user_id)).ok
    # A channel administrator who is a member: topics policy yes (members by default),
    # the delete-message groups no (moderators by default, level 407)
    assert patch(realm.member, stream_id, topics_policy="disable_empty_topic").ok
    assert error(patch(realm.member, stream_id, can_delete_own_message_group=EVERYONE)) == (
        "You are not allowed to do this.")
    assert patch(realm.moderator, stream_id, can_delete_own_message_group=EVERYONE).ok
    # WHEN the organization narrows both settings
    restrict_realm(realm.admin, can_set_topics_policy_group=ADMINS,
                   can_set_delete_message_policy_group=ADMINS)
    assert error(patch(realm.member, stream_id, topics_policy="allow_empty_topic")) == (
        "You are not allowed to do this.")
    assert error(patch(realm.moderator, stream_id, can_delete_any_message_group=ADMINS)) == (
        "You are not allowed to do this.")
    # THEN organization administrators still may; the setting cannot be everyone
    assert patch(realm.admin, stream_id, topics_policy="allow_empty_topic").ok
    assert "cannot use the group 'role:everyone'" in error(realm.admin.patch("/realm", {
        "can_set_delete_message_policy_group": {"new": EVERYONE}}))
    state = realm.member.post("/register", {"fetch_event_types": ["realm"]}).json
    assert state["realm_can_set_delete_message_policy_group"] == ADMINS
    assert state["realm_can_set_topics_policy_group"] == ADMINS


def test_new_channel_settings_are_told_in_events(realm, register_queue, fetch_events,
                                                 drain_events, advertise):
    advertise(441)
    stream_id = channel(realm.owner, "told", [realm.owner, realm.member])
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    for name in ("can_move_messages_within_channel_group", "can_resolve_topics_group",
                 "can_create_topic_group"):
        assert patch(realm.owner, stream_id, **{name: only(realm.member.user_id)}).ok
    drain_events()
    told = [(e["property"], e["value"]) for e in fetch_events(realm.member, queue_id)
            if e["type"] == "stream" and e["op"] == "update"]
    assert told == [(name, only(realm.member.user_id)) for name in (
        "can_move_messages_within_channel_group", "can_resolve_topics_group",
        "can_create_topic_group")]
