"""Message events per queue: flags, raw or rendered content, empty topic, narrow, audience."""
from __future__ import annotations


def channel(account, name, principals, **extra):
    response = account.post("/users/me/subscriptions", {"subscriptions": [{"name": name}],
                                                        "principals": principals, **extra})
    assert response.ok, response.json
    subs = account.get("/users/me/subscriptions").json["subscriptions"]
    return next(s["stream_id"] for s in subs if s["name"] == name)


def messages(events):
    return [e for e in events if e["type"] == "message"]


def test_each_queue_gets_its_own_form(realm, register_queue, fetch_events, drain_events):
    # GIVEN a channel of member and admin, and queues with different options
    stream_id = channel(realm.member, "forms", [realm.member.user_id, realm.admin.user_id])
    raw = register_queue(realm.admin, event_types=["message"])["queue_id"]
    rendered = register_queue(realm.admin, event_types=["message"], apply_markdown=True,
                              client_capabilities={"empty_topic_name": True})["queue_id"]
    sender = register_queue(realm.member, event_types=["message"],
                            apply_markdown=True)["queue_id"]
    # WHEN the member mentions the admin in the empty topic
    sent = realm.member.post("/messages", {"type": "stream", "to": stream_id, "topic": "",
                                           "content": "**hi** @**Adam Admin**"})
    assert sent.ok, sent.json
    drain_events()
    # THEN the default (apply_markdown false) queue gets the raw content and the display name
    [plain] = messages(fetch_events(realm.admin, raw))
    assert plain["message"]["content"] == "**hi** @**Adam Admin**"
    assert plain["message"]["subject"] == "general chat"
    assert "mentioned" in plain["flags"]
    assert not any(k.startswith("_") for k in (*plain, *plain["message"]))
    # AND the rendering client with empty_topic_name gets HTML and ""
    [html] = messages(fetch_events(realm.admin, rendered))
    assert html["message"]["content"].startswith("<p><strong>hi</strong>")
    assert html["message"]["subject"] == ""
    assert html["message"]["id"] == sent.json["id"]
    # AND the sender's flags are the sender's own
    [own] = messages(fetch_events(realm.member, sender))
    assert "read" in own["flags"] and "mentioned" not in own["flags"]


def test_narrow_and_all_public_streams(realm, register_queue, fetch_events, drain_events):
    # GIVEN two public channels of the member, and a private one
    first = channel(realm.member, "first", [realm.member.user_id])
    second = channel(realm.member, "second", [realm.member.user_id])
    secret = channel(realm.member, "secret", [realm.member.user_id], invite_only=True)
    narrowed = register_queue(realm.member, event_types=["message"],
                              narrow=[["channel", "first"]])["queue_id"]
    # AND the owner (subscribed to none) watching all public channels, and the admin not
    watcher = register_queue(realm.owner, event_types=["message"],
                             all_public_streams=True)["queue_id"]
    bystander = register_queue(realm.admin, event_types=["message"])["queue_id"]
    # WHEN the member posts in all three
    for stream_id in (first, second, secret):
        assert realm.member.post("/messages", {"type": "stream", "to": stream_id,
                                               "topic": "t", "content": "x"}).ok
    drain_events()
    # THEN the narrowed queue gets only its channel; the watcher only the public ones
    assert [e["message"]["stream_id"] for e in messages(
        fetch_events(realm.member, narrowed))] == [first]
    assert [e["message"]["stream_id"] for e in messages(
        fetch_events(realm.owner, watcher))] == [first, second]
    assert messages(fetch_events(realm.admin, bystander)) == []


def test_direct_message_reaches_only_participants(realm, register_queue, fetch_events,
                                                  drain_events):
    queues = {account.user_id: register_queue(account, event_types=["message"])["queue_id"]
              for account in (realm.member, realm.admin, realm.owner)}
    assert realm.member.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                           "content": "psst"}).ok
    drain_events()
    got = {account.user_id: len(messages(fetch_events(account, queues[account.user_id])))
           for account in (realm.member, realm.admin, realm.owner)}
    assert got == {realm.member.user_id: 1, realm.admin.user_id: 1, realm.owner.user_id: 0}
