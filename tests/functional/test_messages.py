"""Channels, subscriptions and messages through the HTTP API."""
from __future__ import annotations

from chalicelib.models.events import Outbox


def outbox_events(realm_id: int) -> list[dict]:
    # A test-only Scan: tests may look at the whole (small) outbox table.
    return [o.event for o in Outbox.scan(Outbox.realm_id == realm_id)]


def subscribe(account, name, principals=None, **extra):
    params = {"subscriptions": [{"name": name}], **extra}
    if principals is not None:
        params["principals"] = principals
    return account.post("/users/me/subscriptions", params)


def test_subscribe_creates_channel_and_lists_it(realm):
    response = realm.member.post("/users/me/subscriptions", {"subscriptions": [
        {"name": "design", "description": "All things **design**"}]})
    assert response.ok, response.json
    assert response.json["subscribed"] == {str(realm.member.user_id): ["design"]}
    again = subscribe(realm.member, "design")
    assert again.json["already_subscribed"] == {str(realm.member.user_id): ["design"]}
    subs = realm.member.get("/users/me/subscriptions").json["subscriptions"]
    assert [s["name"] for s in subs] == ["design"]
    stream_id = subs[0]["stream_id"]
    stream = realm.member.get(f"/streams/{stream_id}").json["stream"]
    assert stream["rendered_description"] == "<p>All things <strong>design</strong></p>"
    assert stream_id in [s["stream_id"] for s in realm.owner.get("/streams").json["streams"]]
    events = outbox_events(realm.realm_id)
    assert any(e["type"] == "stream" and e["op"] == "create" for e in events)
    assert any(e["type"] == "subscription" and e["op"] == "add" for e in events)


def test_channel_rules(realm):
    assert subscribe(realm.guest, "guest-made").json["msg"].startswith("Insufficient permission")
    assert subscribe(realm.member, "x" * 61).status == 400
    assert subscribe(realm.member, "  ").status == 400
    assert realm.member.get("/streams/99999").json["msg"] == "No channel you can see has that ID."
    subscribe(realm.admin, "secret", invite_only=True)
    secret_id = realm.admin.get("/get_stream_id", {"stream": "secret"}).json["stream_id"]
    assert realm.member.get(f"/streams/{secret_id}").json["msg"] == "No channel you can see has that ID."
    denied = subscribe(realm.member, "secret")
    assert denied.status == 400
    bad_principal = subscribe(realm.member, "open", principals=[424242])
    assert bad_principal.status == 400


def test_channel_message_send_and_fetch(realm, drain_events):
    subscribe(realm.owner, "general", principals=[realm.owner.user_id, realm.member.user_id])
    sent = realm.member.post("/messages", {"type": "stream", "to": "general", "topic": "hi",
                                           "content": "Hello @**Olivia Owner** <script>x</script>"})
    assert sent.ok, sent.json
    drain_events()   # the fan-out writes each recipient's flags
    fetched = realm.owner.get("/messages", {"anchor": "newest", "num_before": 10,
                                            "num_after": 0,
                                            "narrow": [{"operator": "channel",
                                                        "operand": "general"}]})
    assert fetched.ok, fetched.json
    message = fetched.json["messages"][-1]
    assert message["id"] == sent.json["id"] and message["subject"] == "hi"
    assert f'data-user-id="{realm.owner.user_id}"' in message["content"]
    assert "<script>" not in message["content"] and "&lt;script&gt;" in message["content"]
    assert "mentioned" in message["flags"]
    assert message["display_recipient"] == "general"
    assert message["sender_full_name"] == "Max Member"
    raw = realm.owner.get(f"/messages/{sent.json['id']}", {"apply_markdown": False}).json
    assert raw["message"]["content"].startswith("Hello @**Olivia Owner**")
    events = [e for e in outbox_events(realm.realm_id) if e["type"] == "message"]
    assert events and events[-1]["message"]["id"] == sent.json["id"]


def test_topic_narrow_and_anchors(realm):
    subscribe(realm.member, "dev")
    ids = []
    for topic in ("a", "b", "a", "a"):
        ids.append(realm.member.post("/messages", {"type": "stream", "to": "dev",
                                                   "topic": topic, "content": topic}).json["id"])
    narrow = [["stream", "dev"], ["topic", "a"]]
    body = realm.member.get("/messages", {"anchor": ids[2], "num_before": 1, "num_after": 1,
                                          "narrow": narrow}).json
    assert [m["id"] for m in body["messages"]] == [ids[0], ids[2], ids[3]]
    # one a side is what was asked: whether more lie beyond is not yet known
    assert body["found_anchor"] and not body["found_oldest"] and not body["found_newest"]
    wider = realm.member.get("/messages", {"anchor": ids[2], "num_before": 2, "num_after": 2,
                                           "narrow": narrow}).json
    assert [m["id"] for m in wider["messages"]] == [ids[0], ids[2], ids[3]]
    assert wider["found_anchor"] and wider["found_oldest"] and wider["found_newest"]
    oldest = realm.member.get("/messages", {"anchor": "oldest", "num_before": 0,
                                            "num_after": 1, "narrow": narrow}).json
    assert [m["id"] for m in oldest["messages"]] == [ids[0]]
    assert not oldest["found_newest"]


def test_direct_messages(realm):
    sent = realm.member.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                           "content": "psst"})
    assert sent.ok, sent.json
    narrow = [{"operator": "dm", "operand": [realm.member.user_id]}]
    body = realm.admin.get("/messages", {"anchor": "newest", "num_before": 5, "num_after": 0,
                                         "narrow": narrow}).json
    assert [m["id"] for m in body["messages"]] == [sent.json["id"]]
    assert {r["id"] for r in body["messages"][0]["display_recipient"]} == {
        realm.member.user_id, realm.admin.user_id}
    assert realm.guest.get(f"/messages/{sent.json['id']}").json["msg"] == \
        "Message not found, or you cannot see it."
    by_email = realm.member.post("/messages", {"type": "private", "to": realm.admin.email,
                                               "content": "again"})
    assert by_email.ok


def test_send_errors(realm):
    subscribe(realm.member, "errs")
    cases = [
        ({"type": "stream", "to": "errs", "topic": "t", "content": "   "}, "BAD_REQUEST"),
        ({"type": "stream", "to": "errs", "topic": "t" * 61, "content": "x"}, "BAD_REQUEST"),
        ({"type": "stream", "to": "nope", "topic": "t", "content": "x"}, "STREAM_DOES_NOT_EXIST"),
        ({"type": "private", "to": [987654], "content": "x"}, "BAD_REQUEST"),
        ({"type": "bogus", "to": "errs", "content": "x"}, "BAD_REQUEST"),
        ({"type": "stream", "to": "errs", "topic": "t"}, "REQUEST_VARIABLE_MISSING"),
        ({"type": "stream", "to": "errs", "topic": "t", "content": "x" * 10001}, "BAD_REQUEST"),
    ]
    for params, code in cases:
        response = realm.member.post("/messages", params)
        assert response.status == 400 and response.json["code"] == code, (params, response.json)
    assert realm.guest.post("/messages", {"type": "stream", "to": "errs", "topic": "t",
                                          "content": "x"}).status == 400


def test_empty_topic_display_and_fetch_errors(realm):
    subscribe(realm.member, "chat")
    sent = realm.member.post("/messages", {"type": "stream", "to": "chat", "topic": "(no topic)",
                                           "content": "x"}).json["id"]
    shown = realm.member.get(f"/messages/{sent}").json["message"]["subject"]
    assert shown == "general chat"
    raw = realm.member.get(f"/messages/{sent}", {"allow_empty_topic_name": True}).json
    assert raw["message"]["subject"] == ""
    bad = realm.member.get("/messages", {"anchor": "newest", "num_before": 1, "num_after": 0,
                                         "narrow": [["bogus", "x"]]})
    assert bad.status == 400
    missing = realm.member.get("/messages", {"anchor": "newest"})
    assert missing.json["code"] == "REQUEST_VARIABLE_MISSING"


def test_group_and_wildcard_mentions(realm, drain_events):
    from chalicelib.models.realms import UniqueName, group_name_key
    from chalicelib.models.user_groups import UserGroup

    # GIVEN a user group with the admin in it
    UserGroup(realm.realm_id, 50, name="support", direct_members={realm.admin.user_id},
              date_created=0).save()
    UniqueName(*group_name_key(realm.realm_id, "support"), target_id=50).save()
    subscribe(realm.member, "help", principals=[realm.member.user_id, realm.admin.user_id])
    # WHEN the member mentions the group and everyone in a small channel
    sent = realm.member.post("/messages", {"type": "stream", "to": "help", "topic": "q",
                                           "content": "@*support* and @**all**, also @**Nobody**"})
    assert sent.ok, sent.json
    events = [e for e in outbox_events(realm.realm_id) if e["type"] == "message"
              and e["message"]["id"] == sent.json["id"]]
    assert events
    drain_events()
    message = realm.admin.get(f"/messages/{sent.json['id']}").json["message"]
    # THEN both render as mentions, the unknown name stays text, and flags say so
    assert 'class="user-group-mention" data-user-group-id="50">@support' in message["content"]
    assert "channel-wildcard-mention" in message["content"]
    assert "@<strong>Nobody</strong>" in message["content"]   # plain Markdown, no mention
    assert "stream_wildcard_mentioned" in message["flags"]
    assert "mentioned" in message["flags"]   # through the group


def test_wildcard_in_large_channel_needs_permission(realm):
    big = [realm.add_user(f"Crowd {n}").user_id for n in range(16)]
    subscribe(realm.owner, "town-hall", principals=[realm.member.user_id, *big])
    refused = realm.member.post("/messages", {"type": "stream", "to": "town-hall", "topic": "x",
                                              "content": "hey @**everyone**"})
    assert refused.json["code"] == "STREAM_WILDCARD_MENTION_NOT_ALLOWED"
    refused = realm.member.post("/messages", {"type": "stream", "to": "town-hall", "topic": "x",
                                              "content": "hey @**topic**"})
    assert refused.json["code"] == "TOPIC_WILDCARD_MENTION_NOT_ALLOWED"
    subscribe(realm.admin, "town-hall")
    allowed = realm.admin.post("/messages", {"type": "stream", "to": "town-hall", "topic": "x",
                                             "content": "hey @**everyone**"})
    assert allowed.ok


def test_a_one_to_one_conversation_has_one_recipient_id_both_ways(realm):
    """Level 482: the value of a 1:1 conversation's recipient_id is opaque; what clients
    rely on is that every message of one conversation shares it, whoever sent it."""
    def recipient_id(sender, to) -> int:
        sent = sender.post("/messages", {"type": "direct", "to": [to.user_id],
                                         "content": "hi"})
        assert sent.ok, sent.json
        return int(sender.get(f"/messages/{sent.json['id']}").json["message"]["recipient_id"])

    there = recipient_id(realm.owner, realm.member)
    back = recipient_id(realm.member, realm.owner)
    assert there == back == recipient_id(realm.owner, realm.member)
    # Another conversation, and the owner's conversation with themself, have their own
    others = {recipient_id(realm.owner, realm.admin), recipient_id(realm.owner, realm.owner)}
    assert len(others) == 2 and there not in others
