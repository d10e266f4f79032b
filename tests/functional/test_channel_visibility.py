"""Who learns of a channel and reads it, tried as the one who must be refused: a guest
outside a public channel, a member outside a private one, a user of another
organization. Registration, every channel event of the fan-out, the push channel,
message fetch and search ask one rule (actions/channels/reads/permissions.py)."""
from __future__ import annotations

import json
from typing import Any

from chalicelib.core.principal import ROLE_GUEST
from tests.functional.conftest import make_realm
from tests.functional.edit_helpers import channel, send
from tests.functional.stream_admin_helpers import patch, set_realm_settings
from tests.functional.test_events_websocket import connect, message, sockets  # noqa: F401

SECRET_NAME = "lobby-for-members"
SECRET_WORDS = "marmalade-phrase"
_messages_of: dict[int, list[int]] = {}   # the messages busy_public_channel sent


def refused(response) -> tuple[int, str]:
    assert response.json["result"] == "error", response.json
    return response.status, response.json["code"]


def about(events: list[dict[str, Any]], stream_id: int) -> list[dict[str, Any]]:
    """The events that say anything of this channel: its id, name, messages or their
    words."""
    message_ids = set(_messages_of.get(stream_id, ()))

    def names(value: Any) -> bool:
        if isinstance(value, dict):
            return any(
                (key in ("stream_id", "channel_id") and item == stream_id)
                or (key == "stream_ids" and stream_id in item)
                or (key == "message_id" and item in message_ids)
                or (key == "message_ids" and message_ids & set(item))
                or names(item) for key, item in value.items())
        if isinstance(value, list):
            return any(names(item) for item in value)
        return False
    return [e for e in events if names(e) or SECRET_NAME in json.dumps(e)
            or SECRET_WORDS in json.dumps(e)]


def busy_public_channel(realm, drain_events) -> int:
    """A public channel the guest is not in, and everything that can happen in one:
    creation, subscribers coming and going, messages, an edit, a reaction, a deletion,
    a description change, archiving."""
    stream_id = channel(realm.owner, SECRET_NAME, [realm.owner, realm.member])
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": SECRET_NAME}],
        "principals": [realm.moderator.user_id]}).ok
    assert realm.moderator.delete("/users/me/subscriptions", {
        "subscriptions": [SECRET_NAME]}).ok
    first = send(realm.owner, SECRET_NAME, "plans", f"{SECRET_WORDS} one")
    second = send(realm.member, SECRET_NAME, "plans", f"{SECRET_WORDS} two")
    assert realm.owner.patch(f"/messages/{first}", {"content": f"{SECRET_WORDS} edited"}).ok
    assert realm.member.post(f"/messages/{first}/reactions", {"emoji_name": "smile"}).ok
    assert realm.member.delete(f"/messages/{second}").ok or \
        realm.owner.delete(f"/messages/{second}").ok
    _messages_of[stream_id] = [first, second]
    assert patch(realm.owner, stream_id, description=f"{SECRET_WORDS} here").ok
    assert realm.owner.delete(f"/streams/{stream_id}").ok
    drain_events()
    return stream_id


def test_a_guest_may_not_follow_every_public_channel(realm, drain_events):
    # POST /register and GET /events (which registers when given no queue) refuse it,
    # as the reference does for anyone who may not read public channels
    assert refused(realm.guest.post("/register", {"all_public_streams": True})) == (
        400, "BAD_REQUEST")
    assert refused(realm.guest.get("/events", {"dont_block": True,
                                               "all_public_streams": True})) == (
        400, "BAD_REQUEST")
    # Members and above may
    assert realm.member.post("/register", {"all_public_streams": True}).ok
    assert realm.member.get("/events", {"dont_block": True, "all_public_streams": True}).ok
    # A guest's ordinary registration is unaffected
    assert realm.guest.post("/register", {"all_public_streams": False}).ok


def test_a_guest_hears_nothing_of_a_public_channel_it_is_not_in(realm, register_queue,
                                                                 fetch_events, drain_events):
    guest = register_queue(realm.guest)["queue_id"]
    watcher = register_queue(realm.admin, all_public_streams=True)["queue_id"]
    drain_events()
    stream_id = busy_public_channel(realm, drain_events)
    # The guest's queue says nothing of the channel: not its creation, its subscribers,
    # its messages, their edits, reactions and deletion, nor its changes
    assert about(fetch_events(realm.guest, guest), stream_id) == []
    # ... while a member following every public channel heard all of it
    heard = {(e["type"], e.get("op")) for e in about(fetch_events(realm.admin, watcher),
                                                     stream_id)}
    assert {("stream", "create"), ("subscription", "peer_add"),
            ("subscription", "peer_remove"), ("message", None), ("update_message", None),
            ("reaction", "add"), ("delete_message", None), ("stream", "update")} <= heard


def test_a_queue_stops_following_public_channels_when_its_owner_becomes_a_guest(
        realm, register_queue, fetch_events, drain_events):
    # GIVEN a member's queue that follows every public channel
    queue = register_queue(realm.member, all_public_streams=True)["queue_id"]
    stream_id = channel(realm.owner, SECRET_NAME, [realm.owner])
    drain_events()
    assert about(fetch_events(realm.member, queue), stream_id)   # it did, as a member
    # WHEN the member becomes a guest
    assert realm.owner.patch(f"/users/{realm.member.user_id}", {"role": ROLE_GUEST}).ok
    drain_events()
    seen = fetch_events(realm.member, queue)
    last = seen[-1]["id"]
    send(realm.owner, SECRET_NAME, "plans", f"{SECRET_WORDS} after")
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": SECRET_NAME}], "principals": [realm.admin.user_id]}).ok
    drain_events()
    # THEN the same queue hears nothing more of the channel
    assert about(fetch_events(realm.member, queue, last), stream_id) == []


def test_a_guest_learns_of_a_public_channel_by_joining_it_and_forgets_it_by_leaving(
        realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.owner, SECRET_NAME, [realm.owner])
    queue = register_queue(realm.guest)["queue_id"]
    drain_events()
    # WHEN the guest is subscribed, it gets the channel before its subscription, as the
    # reference sends it, then its subscribers and messages
    # (without the notification bot's notice of it: a direct message naming the channel)
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": SECRET_NAME}], "principals": [realm.guest.user_id],
        "send_new_subscription_messages": False}).ok
    send(realm.owner, SECRET_NAME, "plans", f"{SECRET_WORDS} inside")
    drain_events()
    events = about(fetch_events(realm.guest, queue), stream_id)
    assert [(e["type"], e.get("op")) for e in events] == [
        ("stream", "create"), ("subscription", "add"), ("subscription", "peer_add"),
        ("message", None)]
    last = events[-1]["id"]
    # WHEN it leaves, the channel is deleted from its view, and nothing more follows
    assert realm.guest.delete("/users/me/subscriptions", {"subscriptions": [SECRET_NAME]}).ok
    drain_events()
    send(realm.owner, SECRET_NAME, "plans", f"{SECRET_WORDS} after")
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": SECRET_NAME}], "principals": [realm.member.user_id]}).ok
    drain_events()
    assert [(e["type"], e.get("op")) for e in about(fetch_events(realm.guest, queue, last),
                                                    stream_id)] == [
        ("subscription", "remove"), ("stream", "delete")]


def test_web_public_channels_reach_guests(realm, register_queue, fetch_events, drain_events):
    set_realm_settings(realm.realm_id, enable_spectator_access=True)
    stream_id = channel(realm.owner, SECRET_NAME, [realm.owner])
    queue = register_queue(realm.guest)["queue_id"]
    drain_events()
    # WHEN the channel becomes web-public, guests learn of it (and of its subscribers)
    assert patch(realm.owner, stream_id, is_web_public=True).ok
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": SECRET_NAME}], "principals": [realm.member.user_id]}).ok
    drain_events()
    events = about(fetch_events(realm.guest, queue), stream_id)
    assert [(e["type"], e.get("op")) for e in events] == [
        ("stream", "create"), ("stream", "update"), ("subscription", "peer_add")]
    state = realm.guest.post("/register", {"fetch_event_types": ["subscription", "stream"]})
    assert stream_id in {s["stream_id"] for s in state.json["never_subscribed"]}
    assert stream_id in {s["stream_id"] for s in state.json["streams"]}
    listed = realm.guest.get("/streams", {"include_web_public": True}).json["streams"]
    assert stream_id in {s["stream_id"] for s in listed}
    # WHEN it stops being web-public, they are told to forget it, and hear no more
    assert patch(realm.owner, stream_id, is_web_public=False).ok
    drain_events()
    events = about(fetch_events(realm.guest, queue, events[-1]["id"]), stream_id)
    assert [(e["type"], e.get("op")) for e in events] == [("stream", "delete")]
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": SECRET_NAME}], "principals": [realm.moderator.user_id]}).ok
    drain_events()
    assert about(fetch_events(realm.guest, queue, events[-1]["id"]), stream_id) == []


def test_the_push_channel_carries_nothing_of_a_public_channel_to_a_guest(
        realm, register_queue, drain_events, sockets):  # noqa: F811 - the fixture
    # GIVEN a guest connected over the WebSocket, in one channel
    channel(realm.owner, "guests-welcome", [realm.owner, realm.guest])
    queue_id = register_queue(realm.guest, client_capabilities={
        "teamchat_websocket": True})["queue_id"]
    drain_events()
    connection, answer = connect(realm.guest, queue_id)
    assert answer == {"statusCode": 200}
    message(connection, {"op": "get_events", "last_event_id": -1})
    # WHEN a public channel it is not in lives its life, and its own channel gets a word
    stream_id = busy_public_channel(realm, drain_events)
    send(realm.owner, "guests-welcome", "hi", "welcome aboard")
    drain_events()
    pushed = sockets.events(connection)
    # THEN only its own channel's message was pushed
    assert about(pushed, stream_id) == []
    assert [e["message"]["content"] for e in pushed if e["type"] == "message"] == [
        "welcome aboard"]


def test_registration_shows_a_guest_only_its_channels(realm, register_queue, drain_events):
    mine = channel(realm.owner, "guests-welcome", [realm.owner, realm.guest])
    hidden = channel(realm.owner, SECRET_NAME, [realm.owner, realm.member])
    before = register_queue(realm.guest, fetch_event_types=["message"])["max_message_id"]
    for n in range(3):
        send(realm.owner, SECRET_NAME, "plans", f"{SECRET_WORDS} {n}")
    drain_events()
    state = register_queue(realm.guest, fetch_event_types=[
        "subscription", "stream", "message", "update_message_flags", "default_streams"])
    listed = [s["stream_id"] for key in ("subscriptions", "unsubscribed", "never_subscribed",
                                         "streams")
              for s in state[key]]
    assert mine in listed and hidden not in listed
    assert SECRET_NAME not in json.dumps(state) and SECRET_WORDS not in json.dumps(state)
    assert state["max_message_id"] == before
    assert state["realm_default_streams"] == []
    assert [s["stream_id"] for s in realm.guest.get("/streams").json["streams"]] == [mine]
    # A member's registration lists it among the channels it may join
    member = register_queue(realm.member, fetch_event_types=["stream"])
    assert hidden in {s["stream_id"] for s in member["streams"]}


def test_a_guest_fetches_and_searches_nothing_of_a_public_channel(realm, drain_events):
    stream_id = channel(realm.owner, SECRET_NAME, [realm.owner])
    secret = send(realm.owner, SECRET_NAME, "plans", f"{SECRET_WORDS} words")
    drain_events()
    fetched = realm.guest.get(f"/messages/{secret}")
    assert refused(fetched) == (400, "BAD_REQUEST")
    narrow = [{"operator": "channel", "operand": stream_id}]
    assert refused(realm.guest.get("/messages", {
        "anchor": "newest", "num_before": 10, "num_after": 0, "narrow": narrow})) == (
        400, "BAD_NARROW")   # as naming no channel at all
    for narrow in ([{"operator": "search", "operand": SECRET_WORDS}],
                   [{"operator": "channels", "operand": "public"}], []):
        page = realm.guest.get("/messages", {"anchor": "newest", "num_before": 50,
                                             "num_after": 0, "narrow": narrow})
        assert page.ok, page.json
        assert secret not in [m["id"] for m in page.json["messages"]], narrow
    # A member reads and finds it
    assert realm.member.get(f"/messages/{secret}").ok


def test_another_organization_hears_and_reads_nothing(realm, chalice_client, register_queue,
                                                     fetch_events, drain_events):
    other = make_realm(chalice_client)
    queue = register_queue(other.owner, all_public_streams=True)["queue_id"]
    channel(realm.owner, "open-to-members", [realm.owner])
    secret = send(realm.owner, "open-to-members", "t", f"{SECRET_WORDS} elsewhere")
    stream_id = busy_public_channel(realm, drain_events)
    assert about(fetch_events(other.owner, queue), stream_id) == []
    assert SECRET_WORDS not in json.dumps(fetch_events(other.owner, queue))
    assert refused(other.owner.get(f"/messages/{secret}")) == (400, "BAD_REQUEST")
    page = other.owner.get("/messages", {"anchor": "newest", "num_before": 50,
                                         "num_after": 0, "narrow": []})
    assert page.ok and SECRET_WORDS not in json.dumps(page.json)


def test_a_member_outside_a_private_channel_hears_nothing_of_it(realm, register_queue,
                                                                fetch_events, drain_events):
    queue = register_queue(realm.member, all_public_streams=True)["queue_id"]
    stream_id = channel(realm.owner, SECRET_NAME, [realm.owner, realm.moderator],
                        invite_only=True)
    send(realm.owner, SECRET_NAME, "plans", f"{SECRET_WORDS} private")
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": SECRET_NAME}], "principals": [realm.admin.user_id]}).ok
    drain_events()
    assert about(fetch_events(realm.member, queue), stream_id) == []


def kinds(events: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [(e["type"], e.get("op")) for e in events]


def test_a_private_channel_appears_to_whoever_joins_it_and_vanishes_when_they_leave(
        realm, register_queue, fetch_events, drain_events):
    # GIVEN a private channel created with the moderator among its first subscribers
    queues = {account.user_id: register_queue(account)["queue_id"]
              for account in (realm.moderator, realm.member, realm.admin)}
    stream_id = channel(realm.owner, SECRET_NAME, [realm.owner, realm.moderator],
                        invite_only=True, send_new_subscription_messages=False)
    drain_events()
    # THEN the moderator learned of the channel before its subscription; the admin, who
    # sees every private channel, learned of its creation
    assert kinds(about(fetch_events(realm.moderator, queues[realm.moderator.user_id]), stream_id)
                 )[:2] == [("stream", "create"), ("subscription", "add")]
    assert kinds(about(fetch_events(realm.admin, queues[realm.admin.user_id]), stream_id)) == [
        ("stream", "create")]
    # WHEN a member is added later, and an administrator
    for account in (realm.member, realm.admin):
        assert realm.owner.post("/users/me/subscriptions", {
            "subscriptions": [{"name": SECRET_NAME}], "principals": [account.user_id],
            "send_new_subscription_messages": False}).ok
    drain_events()
    # THEN the member gets the channel first; the administrator only its subscription
    member_events = about(fetch_events(realm.member, queues[realm.member.user_id]), stream_id)
    assert kinds(member_events)[:2] == [("stream", "create"), ("subscription", "add")]
    [created] = [e for e in member_events if e["type"] == "stream"]
    assert [s["stream_id"] for s in created["streams"]] == [stream_id]
    admin_events = about(fetch_events(realm.admin, queues[realm.admin.user_id]), stream_id)
    assert ("stream", "create") not in kinds(admin_events[1:])
    last = {account.user_id: fetch_events(account, queues[account.user_id])[-1]["id"]
            for account in (realm.moderator, realm.member, realm.admin)}
    # WHEN the member leaves, the moderator is removed, and the administrator leaves
    assert realm.member.delete("/users/me/subscriptions", {"subscriptions": [SECRET_NAME]}).ok
    assert realm.owner.delete("/users/me/subscriptions", {
        "subscriptions": [SECRET_NAME], "principals": [realm.moderator.user_id]}).ok
    assert realm.admin.delete("/users/me/subscriptions", {"subscriptions": [SECRET_NAME]}).ok
    drain_events()
    # THEN the two who may no longer see it are told to forget it; the administrator not
    for account in (realm.member, realm.moderator):
        assert kinds(about(fetch_events(account, queues[account.user_id], last[account.user_id]), stream_id)
                     ) == [("subscription", "remove"), ("stream", "delete")]
    assert ("stream", "delete") not in kinds(
        fetch_events(realm.admin, queues[realm.admin.user_id], last[realm.admin.user_id]))
