"""A role change tells the person the channels it showed or hid (as the reference's
send_stream_events_for_role_update): an administrator made a member loses the private
channels they are not in, a member made a guest the public ones, and the reverse changes
bring them back with their subscribers; nobody else hears of it."""
from __future__ import annotations

from typing import Any

CHANNEL_EVENTS = {"event_types": ["stream", "subscription"]}


def create(by, name: str, *, private: bool = False) -> int:
    response = by.post("/users/me/subscriptions", {
        "subscriptions": [{"name": name}], "invite_only": private,
        "send_new_subscription_messages": False})
    assert response.ok, response.json
    return int(by.get("/get_stream_id", {"stream": name}).json["stream_id"])


def channel_events(events: list[dict[str, Any]]) -> list[tuple[str, str, list[int]]]:
    """(type, op, channel ids) of each stream or subscription event, in order."""
    found = []
    for event in events:
        if event["type"] == "stream":
            ids = sorted(s["stream_id"] for s in event["streams"])
            found.append(("stream", event["op"], ids))
        elif event["type"] == "subscription" and event["op"].startswith("peer_"):
            found.append(("subscription", event["op"], event["stream_ids"]))
    return found


def known_channels(account) -> set[int]:
    """The channels a registration lists for the account (the same rule)."""
    response = account.post("/register", {"fetch_event_types": ["stream"]})
    assert response.ok, response.json
    return {s["stream_id"] for s in response.json["streams"]}


def set_role(realm, account, role: int) -> None:
    response = realm.owner.patch(f"/users/{account.user_id}", {"role": role})
    assert response.ok, response.json


def test_an_administrator_made_a_member_forgets_the_private_channels_they_are_not_in(
        realm, register_queue, fetch_events, drain_events):
    secret = create(realm.owner, "secret", private=True)
    create(realm.owner, "open")
    drain_events()
    queue = register_queue(realm.admin, **CHANNEL_EVENTS)["queue_id"]
    assert secret in known_channels(realm.admin)
    bystander = register_queue(realm.member, **CHANNEL_EVENTS)["queue_id"]
    # WHEN the administrator becomes a member
    set_role(realm, realm.admin, 400)
    drain_events()
    # THEN their client forgets the private channel, and only it
    events = fetch_events(realm.admin, queue)
    assert channel_events(events) == [("stream", "delete", [secret])]
    assert events[-1]["stream_ids"] == [secret]
    assert secret not in known_channels(realm.admin)
    # WHEN they are an administrator again
    last = events[-1]["id"]
    set_role(realm, realm.admin, 200)
    drain_events()
    # THEN the channel comes back, then who is in it
    events = fetch_events(realm.admin, queue, last)
    assert channel_events(events) == [("stream", "create", [secret]),
                                      ("subscription", "peer_add", [secret])]
    [shown] = events[0]["streams"]
    assert shown["name"] == "secret" and shown["invite_only"] is True
    assert events[1]["user_ids"] == [realm.owner.user_id]
    # Nobody else heard of it.
    assert channel_events(fetch_events(realm.member, bystander)) == []


def test_a_member_made_a_guest_forgets_the_public_channels_they_are_not_in(
        realm, register_queue, fetch_events, drain_events):
    joined = create(realm.owner, "joined")
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "joined"}], "principals": [realm.member.user_id],
        "send_new_subscription_messages": False}).ok
    other = create(realm.owner, "other")
    drain_events()
    queue = register_queue(realm.member, **CHANNEL_EVENTS)["queue_id"]
    set_role(realm, realm.member, 600)
    drain_events()
    events = fetch_events(realm.member, queue)
    # The channel they are in stays; the one they are not in goes.
    assert channel_events(events) == [("stream", "delete", [other])]
    assert joined not in events[-1]["stream_ids"]
    last = events[-1]["id"]
    set_role(realm, realm.member, 400)
    drain_events()
    assert channel_events(fetch_events(realm.member, queue, last)) == [
        ("stream", "create", [other]), ("subscription", "peer_add", [other])]


def test_a_role_change_that_shows_no_other_channel_sends_no_channel_event(
        realm, register_queue, fetch_events, drain_events):
    create(realm.owner, "secret", private=True)
    create(realm.owner, "open")
    drain_events()
    queue = register_queue(realm.moderator, **CHANNEL_EVENTS)["queue_id"]
    set_role(realm, realm.moderator, 400)   # moderator -> member: the same channels
    drain_events()
    assert channel_events(fetch_events(realm.moderator, queue)) == []
