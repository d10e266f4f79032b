"""Muted users: POST/DELETE /users/me/muted_users/{id}, their state and events, and
muted senders' messages arriving read."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import dm, flags_of, register_state, unread_ids


def _muted(account) -> list[dict]:
    return register_state(account, "muted_users")["muted_users"]


def test_mute_and_unmute_with_state_and_events(realm, register_queue, fetch_events,
                                               drain_events):
    queue_id = register_queue(realm.member, event_types=["muted_users"])["queue_id"]
    # WHEN the member mutes two users
    assert realm.member.post(f"/users/me/muted_users/{realm.owner.user_id}").ok
    assert realm.member.post(f"/users/me/muted_users/{realm.admin.user_id}").ok
    # THEN registration lists both, by id, with when they were muted
    muted = _muted(realm.member)
    assert [m["id"] for m in muted] == sorted([realm.owner.user_id, realm.admin.user_id])
    assert all(isinstance(m["timestamp"], int) and m["timestamp"] > 0 for m in muted)
    assert _muted(realm.owner) == []
    # WHEN one is unmuted THEN the other remains
    assert realm.member.delete(f"/users/me/muted_users/{realm.owner.user_id}").ok
    assert [m["id"] for m in _muted(realm.member)] == [realm.admin.user_id]
    drain_events()
    events = [e for e in fetch_events(realm.member, queue_id) if e["type"] == "muted_users"]
    assert [[m["id"] for m in e["muted_users"]] for e in events] == [
        [realm.owner.user_id], sorted([realm.owner.user_id, realm.admin.user_id]),
        [realm.admin.user_id]]


def test_mute_errors(realm):
    me = realm.member
    for method, path, code in (
            ("post", f"/users/me/muted_users/{me.user_id}", "BAD_REQUEST"),   # self
            ("post", "/users/me/muted_users/999999", "BAD_REQUEST"),          # no such user
            ("delete", f"/users/me/muted_users/{realm.owner.user_id}", "BAD_REQUEST")):  # not
        response = getattr(me, method)(path)
        assert response.status == 400 and response.json["code"] == code, response.json
    assert me.post(f"/users/me/muted_users/{realm.owner.user_id}").ok
    again = me.post(f"/users/me/muted_users/{realm.owner.user_id}")
    assert again.status == 400 and again.json["result"] == "error"
    # A bot cannot be muted, as the reference
    bot = realm.add_user("Helper Bot", is_bot=True)
    assert me.post(f"/users/me/muted_users/{bot.user_id}").status == 400
    # Another realm's user is no such user
    assert me.delete("/users/me/muted_users/999999").status == 400


def test_muted_senders_messages_arrive_read(realm, drain_events):
    channel(realm.owner, "general", [realm.owner, realm.member, realm.admin])
    assert realm.member.post(f"/users/me/muted_users/{realm.owner.user_id}").ok
    drain_events()
    # WHEN the muted user sends to a channel and directly
    in_channel = send(realm.owner, "general", "t")
    direct = dm(realm.owner, [realm.member])
    drain_events()
    # THEN both arrive read for the muter, unread for others
    assert "read" in flags_of(realm.member, in_channel)
    assert "read" in flags_of(realm.member, direct)
    assert "read" not in flags_of(realm.admin, in_channel)
    assert unread_ids(realm.member) == []
    # WHEN unmuted THEN new messages arrive unread again
    assert realm.member.delete(f"/users/me/muted_users/{realm.owner.user_id}").ok
    later = send(realm.owner, "general", "t")
    drain_events()
    assert "read" not in flags_of(realm.member, later)


def test_muting_marks_earlier_messages_read(realm, register_queue, fetch_events,
                                            drain_events):
    channel(realm.owner, "general", [realm.owner, realm.member, realm.admin])
    earlier = send(realm.owner, "general", "t")
    from_admin = send(realm.admin, "general", "t")
    drain_events()
    with drain_events.paused():
        in_flight = send(realm.owner, "general", "t")
    queue_id = register_queue(realm.member,
                              event_types=["update_message_flags", "message"])["queue_id"]
    # WHEN the member mutes the owner (one message delivered, one still in flight)
    assert realm.member.post(f"/users/me/muted_users/{realm.owner.user_id}").ok
    drain_events()
    # THEN the owner's messages are read for the member, the admin's still unread
    assert unread_ids(realm.member) == [from_admin]
    assert "read" in flags_of(realm.member, earlier)
    assert "read" in flags_of(realm.member, in_flight)
    # AND the member's clients hear it: the delivered one by a flags event, the one in
    # flight arrives read (the fan-out found the mute when it delivered it)
    events = fetch_events(realm.member, queue_id)
    flagged = sorted(i for e in events if e["type"] == "update_message_flags"
                     for i in e["messages"])
    arrived = {e["message"]["id"]: e["flags"] for e in events if e["type"] == "message"}
    assert flagged == [earlier]
    assert "read" in arrived[in_flight]
