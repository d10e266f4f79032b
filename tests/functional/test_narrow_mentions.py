"""Level 446: the `mentions` narrow operator, messages with a visible direct mention of a
user (GET /messages, matches_narrow, flags by narrow, event queues)."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send


def ids_of(account, narrow, **params):
    response = account.get("/messages", {"anchor": "newest", "num_before": 50,
                                         "num_after": 0, "narrow": narrow, **params})
    assert response.ok, response.json
    return [m["id"] for m in response.json["messages"]]


def test_mentions_is_unknown_below_level_446(realm, advertise):
    advertise(445)
    channel(realm.owner, "general", [realm.owner, realm.member])
    response = realm.member.get("/messages", {
        "anchor": "newest", "num_before": 5, "num_after": 0,
        "narrow": [{"operator": "mentions", "operand": realm.member.user_id}]})
    assert response.status == 400 and response.json["code"] == "BAD_NARROW"
    queue = realm.member.post("/register", {
        "event_types": ["message"],
        "narrow": [["mentions", str(realm.member.user_id)]]})
    assert queue.status == 400 and queue.json["code"] == "BAD_REQUEST"


def test_mentions_finds_visible_direct_mentions_of_the_user(realm, advertise,
                                                             register_queue, fetch_events,
                                                             drain_events):
    advertise(446)
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member, realm.admin])
    member = realm.member.full_name
    visible = send(realm.owner, "general", "t", f"hi @**{member}**")
    by_id = send(realm.owner, "general", "t", f"and @**{member}|{realm.member.user_id}**")
    send(realm.owner, "general", "t", f"quietly @_**{member}**")
    send(realm.owner, "general", "t", "@**all** look")
    send(realm.owner, "general", "t", f"hi @**{realm.admin.full_name}**")
    dm = realm.owner.post("/messages", {"type": "direct", "to": [realm.member.user_id],
                                        "content": f"@**{member}** see"}).json["id"]
    by_number = [{"operator": "mentions", "operand": realm.member.user_id}]
    by_email = [{"operator": "mentions", "operand": realm.member.email}]
    # THEN each form of the operand finds the visible direct mentions, for any reader
    assert ids_of(realm.member, by_number) == [visible, by_id, dm]
    assert ids_of(realm.admin, by_email) == [visible, by_id]
    # AND the channel's history is read as with any other term beside a channel
    late = realm.add_user("Late Comer")
    channel(realm.owner, "general", [late])
    assert ids_of(late, [{"operator": "channel", "operand": stream_id}, *by_number]) == [
        visible, by_id]
    assert ids_of(late, by_number) == []   # without a channel: what they received
    # AND negated, it excludes them
    negated = [{"operator": "channel", "operand": stream_id},
               {"operator": "mentions", "operand": realm.member.user_id, "negated": True}]
    assert visible not in ids_of(realm.member, negated)
    matched = realm.member.get("/messages/matches_narrow", {
        "msg_ids": [visible, by_id, dm, visible + 2], "narrow": by_number})
    assert set(matched.json["messages"]) == {str(visible), str(by_id), str(dm)}
    # AND an event queue narrowed by it gets only such messages
    drain_events()
    queue_id = register_queue(realm.admin, event_types=["message"], narrow=[
        ["mentions", str(realm.member.user_id)]])["queue_id"]
    send(realm.owner, "general", "t", "nothing")
    wanted = send(realm.owner, "general", "t", f"ping @**{member}**")
    drain_events()
    assert [e["message"]["id"] for e in fetch_events(realm.admin, queue_id)
            if e["type"] == "message"] == [wanted]
    # AND an unknown user is refused
    unknown = realm.member.get("/messages", {
        "anchor": "newest", "num_before": 5, "num_after": 0,
        "narrow": [{"operator": "mentions", "operand": 999999}]})
    assert unknown.status == 400 and unknown.json["code"] == "BAD_NARROW"
