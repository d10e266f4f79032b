"""GET /messages/{id}/read_receipts: readers derived from the read state."""
from __future__ import annotations

from chalicelib.core.errors import UNKNOWN_USER
from chalicelib.models.channels import Subscription, user_key
from chalicelib.rules.timeutil import now_seconds
from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import dm, set_flags


def receipts(account, message_id: int):
    return account.get(f"/messages/{message_id}/read_receipts")


def readers(account, message_id: int) -> list[int]:
    response = receipts(account, message_id)
    assert response.ok, response.json
    return response.json["user_ids"]


def joined_later(realm, user_id: int, stream_id: int) -> None:
    """Test setup only: the subscription dates from seconds after the message."""
    Subscription(user_key(realm.realm_id, user_id), stream_id).update(
        actions=[Subscription.date_subscribed.set(now_seconds() + 5)])


def enable(realm) -> None:
    assert realm.owner.patch("/realm", {"enable_read_receipts": True}).ok


def test_channel_readers_are_recipients_without_a_marker(realm, drain_events):
    enable(realm)
    members = [realm.owner, realm.admin, realm.moderator, realm.member]
    channel(realm.owner, "team", members=members)
    message_id = send(realm.member, "team", "t", "hello")
    drain_events()   # the fan-out writes the recipients' unread markers
    # GIVEN nobody has read it yet (the sender is never listed)
    assert readers(realm.admin, message_id) == []
    # WHEN two recipients read it, one of whom does not share read receipts
    assert realm.moderator.patch("/settings", {"send_read_receipts": False}).ok
    for account in (realm.admin, realm.moderator):
        assert set_flags(account, [message_id], "add", "read").ok
    # THEN only the one who shares them is listed, to any reader of the message
    assert readers(realm.member, message_id) == [realm.admin.user_id]
    assert readers(realm.owner, message_id) == [realm.admin.user_id]
    # WHEN a later subscriber joins (they never received it) and the owner reads it
    team = channel(realm.owner, "team", members=[realm.guest])
    joined_later(realm, realm.guest.user_id, team)
    assert set_flags(realm.owner, [message_id], "add", "read").ok
    assert readers(realm.guest, message_id) == sorted([realm.admin.user_id,
                                                       realm.owner.user_id])
    # AND marking it unread again takes the reader off the list
    assert set_flags(realm.admin, [message_id], "remove", "read").ok
    assert readers(realm.member, message_id) == [realm.owner.user_id]


def test_direct_message_readers(realm, drain_events):
    enable(realm)
    response = realm.member.post("/messages", {
        "type": "direct", "to": [realm.admin.user_id, realm.guest.user_id],
        "content": "hi both"})
    assert response.ok, response.json
    message_id = response.json["id"]
    drain_events()
    assert readers(realm.member, message_id) == []
    assert set_flags(realm.guest, [message_id], "add", "read").ok
    assert readers(realm.admin, message_id) == [realm.guest.user_id]
    # Not a participant: not a message they can see
    assert receipts(realm.owner, message_id).json["msg"] == "Message not found, or you cannot see it."


def test_refusals(realm, drain_events):
    channel(realm.owner, "secret", members=[realm.owner, realm.admin], invite_only=True)
    message_id = send(realm.owner, "secret", "t", "private words")
    # Disabled (the default): refused for every message, even a readable one
    response = receipts(realm.owner, message_id)
    assert response.status == 400
    assert response.json["msg"] == "This organization has turned read receipts off."
    enable(realm)
    drain_events()
    assert readers(realm.admin, message_id) == []
    for missing in (999999, 0):
        assert receipts(realm.owner, missing).json["msg"] == "Message not found, or you cannot see it."
    # A private channel's message is invisible to non-subscribers
    response = receipts(realm.member, message_id)
    assert (response.status, response.json["msg"]) == (400, "Message not found, or you cannot see it.")
    # The setting is shown and changed as the other organization settings are
    state = realm.member.post("/register", {"fetch_event_types": ["realm"]}).json
    assert state["realm_enable_read_receipts"] is True
    assert realm.member.patch("/realm", {"enable_read_receipts": False}).json["msg"] == \
        "Only the organization's administrators can do this."


def mute(account, other) -> None:
    response = account.post(f"/users/me/muted_users/{other.user_id}")
    assert response.ok, response.json


def test_message_in_flight_is_unread_until_read(realm, drain_events):
    enable(realm)
    channel(realm.owner, "team", members=[realm.owner, realm.admin, realm.member])
    with drain_events.paused():
        # GIVEN a message the fan-out has not reached: no recipient has a marker yet
        message_id = send(realm.owner, "team", "t", "just sent")
        # THEN nobody is listed as a reader
        assert readers(realm.owner, message_id) == []
        # WHEN one recipient marks it read before the fan-out runs
        assert set_flags(realm.admin, [message_id], "add", "read").ok
        # THEN only they are listed
        assert readers(realm.owner, message_id) == [realm.admin.user_id]
    # AND once the fan-out has written the markers, the answer is the same
    drain_events()
    assert readers(realm.owner, message_id) == [realm.admin.user_id]
    assert set_flags(realm.member, [message_id], "add", "read").ok
    assert readers(realm.owner, message_id) == sorted([realm.admin.user_id,
                                                       realm.member.user_id])


def test_direct_message_in_flight(realm, drain_events):
    enable(realm)
    with drain_events.paused():
        message_id = dm(realm.member, [realm.admin])
        assert readers(realm.member, message_id) == []
    drain_events()
    assert readers(realm.member, message_id) == []


def test_mutes_hide_readers(realm, drain_events):
    enable(realm)
    channel(realm.owner, "team", members=[realm.owner, realm.admin, realm.moderator,
                                          realm.member])
    # GIVEN the admin muted the owner (the owner's messages arrive read for them)
    mute(realm.admin, realm.owner)
    with drain_events.paused():
        message_id = send(realm.owner, "team", "t", "news")
        # THEN the sender does not learn of the mute from the receipts, even in flight
        assert readers(realm.owner, message_id) == []
        # AND another reader sees the admin as having read it, as the read state says
        assert readers(realm.member, message_id) == [realm.admin.user_id]
    drain_events()
    assert readers(realm.owner, message_id) == []
    assert readers(realm.member, message_id) == [realm.admin.user_id]
    # WHEN the moderator reads it and the member muted the moderator
    assert set_flags(realm.moderator, [message_id], "add", "read").ok
    mute(realm.member, realm.moderator)
    # THEN the member does not see the moderator among the readers; others do
    assert readers(realm.member, message_id) == [realm.admin.user_id]
    assert readers(realm.owner, message_id) == [realm.moderator.user_id]
    # AND the moderator is hidden from the one who muted them, not the other way only:
    # they do not see the member (who muted them) once the member reads it
    assert set_flags(realm.member, [message_id], "add", "read").ok
    assert realm.member.user_id not in readers(realm.moderator, message_id)
    assert realm.member.user_id in readers(realm.owner, message_id)


def test_a_limited_guest_is_not_told_who_it_may_not_access_read_a_message(realm,
                                                                          drain_events):
    enable(realm)
    # GIVEN a realm limiting guests, a channel the guest shared with the moderator, and a
    # message both received there and the moderator read
    from tests.functional.test_user_access import restrict

    restrict(realm)
    channel(realm.owner, "passing", members=[realm.guest, realm.moderator])
    message_id = send(realm.owner, "passing", "t", "read me")
    drain_events()
    assert set_flags(realm.moderator, [message_id], "add", "read").ok
    assert readers(realm.guest, message_id) == [realm.moderator.user_id]
    # WHEN the guest leaves (it still reads what it received)
    assert realm.guest.delete("/users/me/subscriptions", {"subscriptions": ["passing"]}).ok
    drain_events()
    assert realm.guest.get(f"/users/{realm.moderator.user_id}").json["msg"] == \
        UNKNOWN_USER
    # THEN the receipts leave out the reader it may no longer access; a member sees them
    assert readers(realm.guest, message_id) == []
    assert readers(realm.member, message_id) == [realm.moderator.user_id]
