"""POST /typing and POST /messages/{id}/typing: who gets which typing event."""
from __future__ import annotations

import pytest

from chalicelib.models.events import Outbox

STREAM_TYPING = {"stream_typing_notifications": True}


def channel(account, name, principals):
    response = account.post("/users/me/subscriptions", {"subscriptions": [{"name": name}],
                                                        "principals": principals})
    assert response.ok, response.json
    subs = account.get("/users/me/subscriptions").json["subscriptions"]
    return next(s["stream_id"] for s in subs if s["name"] == name)


def typing_events(fetch_events, account, queue_id):
    return [e for e in fetch_events(account, queue_id)
            if e["type"] in ("typing", "typing_edit_message")]


def test_direct_typing_reaches_recipients_and_sender(realm, register_queue, fetch_events,
                                                     drain_events):
    # GIVEN queues for the sender, the recipient and a bystander
    sender = register_queue(realm.member, event_types=["typing"])["queue_id"]
    recipient = register_queue(realm.admin, event_types=["typing"])["queue_id"]
    bystander = register_queue(realm.owner, event_types=["typing"])["queue_id"]
    # WHEN the member starts and stops typing to the admin
    assert realm.member.post("/typing", {"op": "start", "to": [realm.admin.user_id]}).ok
    assert realm.member.post("/typing", {"type": "direct", "op": "stop",
                                         "to": [realm.admin.user_id]}).ok
    drain_events()
    # THEN both participants see start then stop, in the reference's shape
    expected_recipients = sorted([{"user_id": realm.member.user_id, "email": realm.member.email},
                                  {"user_id": realm.admin.user_id, "email": realm.admin.email}],
                                 key=lambda r: r["user_id"])
    for account, queue_id in ((realm.member, sender), (realm.admin, recipient)):
        events = typing_events(fetch_events, account, queue_id)
        assert [e["op"] for e in events] == ["start", "stop"]
        assert {k: v for k, v in events[0].items() if k != "id"} == {
            "type": "typing", "op": "start", "message_type": "direct",
            "sender": {"user_id": realm.member.user_id, "email": realm.member.email},
            "recipients": expected_recipients}
    assert typing_events(fetch_events, realm.owner, bystander) == []


def test_typing_respects_receives_typing_notifications(realm, register_queue, fetch_events,
                                                       drain_events):
    # GIVEN a recipient who turned typing notifications off, with a queue before and after
    before = register_queue(realm.admin, event_types=["typing"])["queue_id"]
    assert realm.admin.patch("/settings", {"receives_typing_notifications": False}).ok
    after = register_queue(realm.admin, event_types=["typing"])["queue_id"]
    sender = register_queue(realm.member, event_types=["typing"])["queue_id"]
    # WHEN the member types to them
    assert realm.member.post("/typing", {"op": "start", "to": [realm.admin.user_id]}).ok
    drain_events()
    # THEN neither of the recipient's queues gets it; the sender's does
    assert typing_events(fetch_events, realm.admin, before) == []
    assert typing_events(fetch_events, realm.admin, after) == []
    assert len(typing_events(fetch_events, realm.member, sender)) == 1
    # WHEN they turn it back on
    assert realm.admin.patch("/settings", {"receives_typing_notifications": True}).ok
    assert realm.member.post("/typing", {"op": "stop", "to": [realm.admin.user_id]}).ok
    drain_events()
    assert [e["op"] for e in typing_events(fetch_events, realm.admin, after)] == ["stop"]


def test_channel_typing_needs_the_capability(realm, register_queue, fetch_events,
                                             drain_events):
    # GIVEN a channel of member and admin; the admin's old client lacks the capability
    stream_id = channel(realm.member, "typing-room", [realm.member.user_id, realm.admin.user_id])
    capable = register_queue(realm.member, event_types=["typing"],
                             client_capabilities=STREAM_TYPING)["queue_id"]
    old = register_queue(realm.admin, event_types=["typing"])["queue_id"]
    # AND a non-subscriber watching every public channel
    watcher = register_queue(realm.owner, event_types=["typing"], all_public_streams=True,
                             client_capabilities=STREAM_TYPING)["queue_id"]
    # WHEN the member types in a topic
    assert realm.member.post("/typing", {"type": "channel", "op": "start",
                                         "stream_id": stream_id, "topic": "plans"}).ok
    drain_events()
    # THEN only the capable subscriber's queue gets it
    events = typing_events(fetch_events, realm.member, capable)
    assert [{k: v for k, v in e.items() if k != "id"} for e in events] == [{
        "type": "typing", "op": "start", "message_type": "stream",
        "sender": {"user_id": realm.member.user_id, "email": realm.member.email},
        "stream_id": stream_id, "topic": "plans"}]
    assert typing_events(fetch_events, realm.admin, old) == []
    assert typing_events(fetch_events, realm.owner, watcher) == []


@pytest.mark.parametrize("topic", ["", "(no topic)", "general chat"])
def test_channel_typing_in_the_empty_topic(realm, register_queue, fetch_events, drain_events,
                                           topic):
    # GIVEN a client with empty_topic_name and one without
    stream_id = channel(realm.member, "empty-topic-room", [realm.member.user_id])
    modern = register_queue(realm.member, event_types=["typing"], client_capabilities={
        **STREAM_TYPING, "empty_topic_name": True})["queue_id"]
    older = register_queue(realm.member, event_types=["typing"],
                           client_capabilities=STREAM_TYPING)["queue_id"]
    # WHEN typing in the empty topic, however the client names it
    assert realm.member.post("/typing", {"type": "stream", "op": "start",
                                         "stream_id": stream_id, "topic": topic}).ok
    drain_events()
    # THEN the modern client sees "", the older one the realm's display name
    assert typing_events(fetch_events, realm.member, modern)[0]["topic"] == ""
    assert typing_events(fetch_events, realm.member, older)[0]["topic"] == "general chat"


def test_typing_errors(realm):
    def post(params):
        return realm.member.post("/typing", params)

    assert post({"type": "private", "op": "start", "to": [realm.admin.user_id]}).status == 400
    assert post({"op": "begin", "to": [realm.admin.user_id]}).json["msg"] == "op has an unacceptable value"
    missing_op = post({"to": [realm.admin.user_id]})
    assert missing_op.json["code"] == "REQUEST_VARIABLE_MISSING"
    assert post({"op": "start"}).json["msg"] == "The 'to' parameter is required"
    assert post({"op": "start", "to": []}).json["msg"] == "'to' must name at least one recipient"
    assert post({"op": "start", "to": [999999]}).json["msg"] == "No user with ID 999999 exists"
    assert post({"op": "start", "to": "nope"}).status == 400
    no_channel = post({"type": "channel", "op": "start", "topic": "x"})
    assert (no_channel.status, no_channel.json["code"], no_channel.json["msg"]) == (
        400, "BAD_REQUEST", "Missing channel ID")
    assert post({"type": "stream", "op": "start", "stream_id": 999999,
                 "topic": "x"}).json["msg"] == "No channel you can see has that ID."
    stream_id = channel(realm.admin, "secret-typing", [realm.admin.user_id])
    assert post({"type": "stream", "op": "start",
                 "stream_id": stream_id}).json["msg"] == "A topic is required"


def test_typing_records_are_short_lived(realm):
    # GIVEN a typing notification
    assert realm.member.post("/typing", {"op": "start", "to": [realm.admin.user_id]}).ok
    # THEN its outbox record expires within minutes (a test-only Scan of the small table)
    records = [o for o in Outbox.scan(Outbox.realm_id == realm.realm_id)
               if o.event["type"] == "typing"]
    assert len(records) == 1
    lifetime = records[0].expires_at.timestamp() - records[0].created / 1000
    assert 0 < lifetime <= 600


def test_edit_typing(realm, register_queue, fetch_events, drain_events):
    # GIVEN a direct message from member to admin, and a channel message
    dm = realm.member.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                         "content": "hello"}).json["id"]
    stream_id = channel(realm.member, "edit-room", [realm.member.user_id, realm.admin.user_id])
    posted = realm.member.post("/messages", {"type": "stream", "to": stream_id, "topic": "",
                                             "content": "hi all"}).json["id"]
    admin_queue = register_queue(realm.admin, event_types=["typing_edit_message"])["queue_id"]
    owner_queue = register_queue(realm.owner, event_types=["typing_edit_message"])["queue_id"]
    # WHEN the member starts editing both
    assert realm.member.post(f"/messages/{dm}/typing", {"op": "start"}).ok
    assert realm.member.post(f"/messages/{posted}/typing", {"op": "stop"}).ok
    drain_events()
    # THEN the admin (a recipient of both) sees both, the owner neither
    events = [{k: v for k, v in e.items() if k != "id"}
              for e in typing_events(fetch_events, realm.admin, admin_queue)]
    assert events == [
        {"type": "typing_edit_message", "op": "start", "sender_id": realm.member.user_id,
         "message_id": dm, "recipient": {"type": "direct", "user_ids": sorted(
             [realm.member.user_id, realm.admin.user_id])}},
        {"type": "typing_edit_message", "op": "stop", "sender_id": realm.member.user_id,
         "message_id": posted, "recipient": {"type": "channel", "channel_id": stream_id,
                                             "topic": "general chat"}}]
    assert typing_events(fetch_events, realm.owner, owner_queue) == []
    # AND errors: a message the caller cannot see, a bad op
    assert realm.owner.post(f"/messages/{dm}/typing", {"op": "start"}).json["msg"] == \
        "Message not found, or you cannot see it."
    assert realm.member.post("/messages/999999/typing", {"op": "start"}).status == 400
    assert realm.member.post(f"/messages/{dm}/typing", {"op": "go"}).status == 400
