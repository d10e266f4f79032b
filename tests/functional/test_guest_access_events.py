"""A guest whom the organization limits (can_access_all_users_group) is told of the people
it gains access to (realm_user add) and loses access to (realm_user remove) when it or
they join or leave a channel they share, or start a direct conversation with it, as the
reference tells it; nobody else is."""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib.core.errors import UNKNOWN_USER
from tests.functional.test_deactivation import dynamodb_calls
from tests.functional.test_user_access import PLACEHOLDER_NAME, limit_guests

USER_EVENTS = {"event_types": ["realm_user", "message"]}


@pytest.fixture
def limited(realm):
    return limit_guests(realm)


def people_events(events: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    return [(e["op"], e["person"]["user_id"], e["person"]["full_name"]) for e in events
            if e["type"] == "realm_user"]


def subscribe(by, name: str, *accounts) -> None:
    response = by.post("/users/me/subscriptions", {
        "subscriptions": [{"name": name}], "principals": [a.user_id for a in accounts],
        "send_new_subscription_messages": False})
    assert response.ok, response.json


def unsubscribe(by, name: str, *accounts) -> None:
    response = by.delete("/users/me/subscriptions", {
        "subscriptions": [name], "principals": [a.user_id for a in accounts]})
    assert response.ok, response.json


def requests_to_join(realm, monkeypatch, drain_events, rooms: dict[str, list],
                     joiner) -> list[int]:
    """The DynamoDB requests of `joiner` joining each room once its people are in."""
    counts = []
    for name, people in rooms.items():
        subscribe(realm.owner, name, *people)
        drain_events()
        calls = dynamodb_calls(monkeypatch)
        subscribe(realm.owner, name, joiner)
        counts.append(len(calls))
        monkeypatch.undo()
        drain_events()
    return counts


def test_a_guest_joining_a_channel_meets_its_people_and_forgets_them_on_leaving(
        limited, register_queue, fetch_events, drain_events):
    realm = limited   # the guest shares "shared" with the member only
    bot = realm.add_user("Helper Bot", is_bot=True)
    subscribe(realm.owner, "staff-room", realm.owner, realm.moderator, realm.member, bot)
    drain_events()
    queues = {"plain": register_queue(realm.guest, **USER_EVENTS)["queue_id"],
              "incomplete": register_queue(realm.guest, **USER_EVENTS, client_capabilities={
                  "user_list_incomplete": True})["queue_id"]}
    member_queue = register_queue(realm.member, **USER_EVENTS)["queue_id"]
    drain_events()
    # WHEN the guest is added to a channel of people it could not access
    subscribe(realm.owner, "staff-room", realm.guest)
    drain_events()
    # THEN each of its clients gets those people as they are (not the member, whom it
    # accessed already, nor the bot, whom it always accesses)
    for queue in queues.values():
        events = fetch_events(realm.guest, queue)
        assert sorted(people_events(events)) == sorted([
            ("add", realm.owner.user_id, "Olivia Owner"),
            ("add", realm.moderator.user_id, "Mona Moderator")])
        [owner] = [e["person"] for e in events if e["type"] == "realm_user"
                   and e["person"]["user_id"] == realm.owner.user_id]
        assert owner["email"] == realm.owner.email and owner["role"] == 100
    # ... and can read them now
    assert realm.guest.get(f"/users/{realm.moderator.user_id}").json["user"][
        "full_name"] == "Mona Moderator"
    last = fetch_events(realm.guest, queues["plain"])[-1]["id"]
    # WHEN it leaves the channel
    unsubscribe(realm.guest, "staff-room")
    drain_events()
    # THEN it is told to forget those it may no longer access, and only them
    assert sorted(people_events(fetch_events(realm.guest, queues["plain"], last))) == sorted([
        ("remove", realm.owner.user_id, PLACEHOLDER_NAME),
        ("remove", realm.moderator.user_id, PLACEHOLDER_NAME)])
    assert realm.guest.get(f"/users/{realm.moderator.user_id}").json["msg"] == UNKNOWN_USER
    # Members hear nothing of it: they access everyone all along
    assert people_events(fetch_events(realm.member, member_queue)) == []


def test_a_guest_meets_whoever_joins_its_channel_and_forgets_whoever_leaves(
        limited, register_queue, fetch_events, drain_events):
    realm = limited
    queue = register_queue(realm.guest, **USER_EVENTS)["queue_id"]
    # WHEN an administrator joins the guest's channel, then the moderator, who also
    # shares "staff" with the administrator
    subscribe(realm.admin, "shared", realm.admin)
    subscribe(realm.owner, "shared", realm.moderator)
    drain_events()
    events = fetch_events(realm.guest, queue)
    assert people_events(events) == [("add", realm.admin.user_id, "Adam Admin"),
                                     ("add", realm.moderator.user_id, "Mona Moderator")]
    # WHEN the administrator leaves, and the member (whom the guest also has a direct
    # conversation with) leaves too
    assert realm.member.post("/messages", {"type": "direct", "to": [realm.guest.user_id],
                                           "content": "hi"}).ok
    drain_events()
    last = fetch_events(realm.guest, queue)[-1]["id"]
    unsubscribe(realm.admin, "shared")
    unsubscribe(realm.member, "shared")
    drain_events()
    # THEN the guest forgets the administrator; the member it still accesses
    assert people_events(fetch_events(realm.guest, queue, last)) == [
        ("remove", realm.admin.user_id, PLACEHOLDER_NAME)]


def test_a_direct_message_introduces_its_sender_to_a_limited_guest(
        limited, register_queue, fetch_events, drain_events):
    realm = limited
    queue = register_queue(realm.guest, **USER_EVENTS)["queue_id"]
    # WHEN the owner, whom the guest cannot access, writes to it and the member
    assert realm.owner.post("/messages", {
        "type": "direct", "to": [realm.guest.user_id, realm.member.user_id],
        "content": "welcome"}).ok
    drain_events()
    # THEN the guest gets the owner before the message, and only the owner
    events = fetch_events(realm.guest, queue)
    assert [(e["type"], e.get("op")) for e in events] == [("realm_user", "add"),
                                                          ("message", None)]
    assert people_events(events) == [("add", realm.owner.user_id, "Olivia Owner")]
    # WHEN the owner writes again, the guest knows them already: nothing more
    assert realm.owner.post("/messages", {"type": "direct", "to": [realm.guest.user_id],
                                          "content": "again"}).ok
    drain_events()
    assert people_events(fetch_events(realm.guest, queue, events[-1]["id"])) == []


def test_the_reads_of_a_guest_joining_do_not_grow_with_the_channel(
        limited, monkeypatch, drain_events, register_queue, fetch_events):
    realm = limited
    rooms = {name: [realm.add_user(f"Person {name} {n}") for n in range(size)]
             for name, size in (("small-room", 2), ("large-room", 30))}
    counts = requests_to_join(realm, monkeypatch, drain_events, rooms, realm.guest)
    # THEN the same number of requests for 2 people as for 30 (batches of 100): no read
    # or write per person, and one record carries them all
    assert counts[0] == counts[1], counts
    queue = register_queue(realm.guest, **USER_EVENTS)["queue_id"]
    subscribe(realm.owner, "third-room", realm.guest, realm.admin)
    drain_events()
    assert people_events(fetch_events(realm.guest, queue)) == [
        ("add", realm.admin.user_id, "Adam Admin")]


def test_nothing_is_read_for_guests_where_the_organization_does_not_limit_them(
        realm, monkeypatch, drain_events, register_queue, fetch_events):
    queue = register_queue(realm.guest, **USER_EVENTS)["queue_id"]
    calls = dynamodb_calls(monkeypatch)
    subscribe(realm.owner, "open-room", realm.guest, realm.moderator)
    unsubscribe(realm.owner, "open-room", realm.moderator)
    queries = [c for c in calls if c[0] == "Query"]
    monkeypatch.undo()
    drain_events()
    assert people_events(fetch_events(realm.guest, queue)) == []
    # no Query of the guests' subscriptions or conversations (the realm's by-role index
    # neither): the organization's item says guests are not limited
    assert len(queries) <= 2, queries


def test_a_new_channel_introduces_its_first_subscribers_to_a_limited_guest(
        limited, register_queue, fetch_events, drain_events):
    realm = limited
    queue = register_queue(realm.guest, **USER_EVENTS)["queue_id"]
    # WHEN the owner creates a channel with the guest, the member and the moderator
    response = realm.owner.post("/channels/create", {
        "name": "project", "subscribers": [realm.owner.user_id, realm.guest.user_id,
                                           realm.member.user_id, realm.moderator.user_id]})
    assert response.ok, response.json
    drain_events()
    # THEN the guest meets those it could not access (not the member, whom it could)
    assert sorted(people_events(fetch_events(realm.guest, queue))) == sorted([
        ("add", realm.owner.user_id, "Olivia Owner"),
        ("add", realm.moderator.user_id, "Mona Moderator")])


def test_a_newcomer_signing_up_into_a_guests_channel_is_introduced_to_it(
        limited, monkeypatch, register_queue, fetch_events, drain_events):
    from tests.functional.invite_helpers import emailed_key, invite, register
    from tests.functional.test_signup import crash_once
    realm = limited
    shared = realm.owner.get("/get_stream_id", {"stream": "shared"}).json["stream_id"]
    address = f"nina@{realm.subdomain}.example.net"
    assert invite(realm.admin, address, [shared], invite_as=400).ok
    drain_events()
    queue = register_queue(realm.guest, **USER_EVENTS)["queue_id"]
    # GIVEN a signup cut short before joining its channels, fanned out meanwhile (as on
    # AWS the fan-out may run before a signup's channels are joined): the guest hears
    # of the newcomer as an "Unknown user"
    key = emailed_key(address)
    with monkeypatch.context() as patch:
        crash_once(patch, "subscribe_new_user")
        assert register(realm, key).status == 500
    drain_events()
    # WHEN the signup is completed into the guest's channel
    response = register(realm, key)
    assert response.ok, response.json
    drain_events()
    # THEN the guest is given them as they are, once they share the channel
    newcomer = response.json["user_id"]
    events = [e for e in fetch_events(realm.guest, queue) if e["type"] == "realm_user"
              and e["person"]["user_id"] == newcomer]
    assert [(e["op"], e["person"]["full_name"]) for e in events] == [
        ("add", PLACEHOLDER_NAME), ("add", "Nina Newcomer")]
    assert realm.guest.get(f"/users/{newcomer}").json["user"]["full_name"] == "Nina Newcomer"


def test_the_reads_of_someone_joining_do_not_grow_with_the_guests_there(
        limited, monkeypatch, drain_events, register_queue, fetch_events):
    realm = limited
    rooms = {name: [realm.add_user(f"Guest {name} {n}", role=600) for n in range(size)]
             for name, size in (("few-guests", 2), ("many-guests", 12))}
    counts = requests_to_join(realm, monkeypatch, drain_events, rooms, realm.moderator)
    guests = rooms["many-guests"]
    # THEN the same requests for 2 guests there as for 12: what the rule needs is read
    # for the one who joins, not for each guest
    assert counts[0] == counts[1], counts
    queue = register_queue(guests[0], **USER_EVENTS)["queue_id"]
    subscribe(realm.owner, "many-guests", realm.admin)
    drain_events()
    assert people_events(fetch_events(guests[0], queue)) == [
        ("add", realm.admin.user_id, "Adam Admin")]


def test_a_limited_guest_hears_nothing_of_whom_it_cannot_access(
        limited, register_queue, fetch_events, drain_events):
    realm = limited   # the guest accesses the member, not the moderator
    queue = register_queue(realm.guest, event_types=[
        "presence", "user_status", "realm_user"])["queue_id"]
    member_queue = register_queue(realm.member, event_types=["presence", "user_status"])[
        "queue_id"]
    # WHEN both come online, set a status and change their picture settings
    for account in (realm.moderator, realm.member):
        assert account.post("/users/me/presence", {"status": "active"}).ok
        assert account.post("/users/me/status", {"status_text": "In a meeting"}).ok
        assert account.patch("/settings", {"timezone": "Europe/Paris"}).ok
    drain_events()
    # THEN the guest hears of the member only; a member hears of both
    heard = {(e["type"], e.get("user_id", e.get("person", {}).get("user_id")))
             for e in fetch_events(realm.guest, queue)}
    assert heard == {("presence", realm.member.user_id), ("user_status", realm.member.user_id),
                     ("realm_user", realm.member.user_id)}
    assert {(e["type"], e["user_id"]) for e in fetch_events(realm.member, member_queue)} >= {
        ("presence", realm.moderator.user_id), ("user_status", realm.moderator.user_id)}
    # AND asking for the moderator's presence or status reads as for nobody
    nobody = realm.guest.get("/users/999999/presence")
    for path in ("presence", "status"):
        response = realm.guest.get(f"/users/{realm.moderator.user_id}/{path}")
        assert (response.status, response.json["msg"]) == (400, UNKNOWN_USER), path
    assert nobody.json["msg"] == UNKNOWN_USER
    assert realm.guest.get(f"/users/{realm.member.user_id}/presence").ok
    assert realm.member.get(f"/users/{realm.moderator.user_id}/presence").ok


def test_direct_typing_names_whom_a_guest_cannot_access_by_id_only(
        limited, register_queue, fetch_events, drain_events):
    from chalicelib import config
    realm = limited   # the guest accesses the member, not the owner nor the moderator
    host = f"{realm.subdomain}.{config.root_domain()}"
    guest_queue = register_queue(realm.guest, event_types=["typing"])["queue_id"]
    member_queue = register_queue(realm.member, event_types=["typing"])["queue_id"]
    # WHEN the owner types to the guest, the member and the moderator, before any message
    assert realm.owner.post("/typing", {"op": "start", "to": [
        realm.guest.user_id, realm.member.user_id, realm.moderator.user_id]}).ok
    drain_events()
    # THEN the guest hears the owner and the moderator by id and stand-in address
    [event] = fetch_events(realm.guest, guest_queue)
    assert event["sender"] == {"user_id": realm.owner.user_id,
                               "email": f"user{realm.owner.user_id}@{host}"}
    assert event["recipients"] == [
        {"user_id": account.user_id, "email": f"user{account.user_id}@{host}"
         if account in (realm.owner, realm.moderator) else account.email}
        for account in sorted((realm.owner, realm.guest, realm.member, realm.moderator),
                              key=lambda a: a.user_id)]
    assert realm.owner.email not in str(event) and realm.moderator.email not in str(event)
    # AND the member hears everyone as they are
    [seen] = fetch_events(realm.member, member_queue)
    assert seen["sender"]["email"] == realm.owner.email
    assert realm.moderator.email in str(seen["recipients"])
