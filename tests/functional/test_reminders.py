"""Message reminders (levels 381, 399, 415): created, listed, deleted through the API, with
their registration state and events, and delivered by the notification bot at their time
(their one-time schedule fired as the local stack's runner fires it)."""
from __future__ import annotations

import time
from datetime import UTC, datetime

from infra.local.schedules import fire_due
from tests.functional.edit_helpers import channel, send
from tests.functional.stream_admin_helpers import error


def _fire(realm, at: int) -> list:
    from app import app
    return fire_due(app.handler_map["scheduled_messages"],
                    now=datetime.fromtimestamp(at, UTC),
                    where=lambda payload: payload["realm_id"] == realm.realm_id)


def _remind(account, message_id: int, at: int, **extra):
    return account.post("/reminders", {"message_id": message_id,
                                       "scheduled_delivery_timestamp": at, **extra})


def test_a_reminder_is_listed_told_and_delivered_by_the_notification_bot(
        realm, register_queue, fetch_events, drain_events, advertise):
    advertise(415)
    channel(realm.owner, "planning", [realm.owner, realm.member])
    message_id = send(realm.owner, "planning", "launch", "Ship on **Friday**, @**Max Member**")
    queue_id = register_queue(realm.member, event_types=["reminders"])["queue_id"]
    at = int(time.time()) + 3600
    # WHEN the member asks to be reminded of it, with a note
    created = _remind(realm.member, message_id, at, note="check the release notes")
    assert created.ok, created.json
    reminder_id = created.json["reminder_id"]
    # THEN it is listed, in the state and told to the member's queues
    [listed] = realm.member.get("/reminders").json["reminders"]
    assert {k: listed[k] for k in ("reminder_id", "type", "to", "scheduled_delivery_timestamp",
                                   "failed", "reminder_target_message_id")} == {
        "reminder_id": reminder_id, "type": "private", "to": [realm.member.user_id],
        "scheduled_delivery_timestamp": at, "failed": False,
        "reminder_target_message_id": message_id}
    assert "#planning > launch" in listed["content"]
    assert "> check the release notes" in listed["content"]
    # the quoted mention notifies nobody again
    assert "@_**Max Member**" in listed["content"]
    state = realm.member.post("/register", {"fetch_event_types": ["reminders"]}).json
    assert state["reminders"] == [listed]
    assert state["max_reminder_note_length"] == 1000
    drain_events()
    [added] = fetch_events(realm.member, queue_id)
    assert (added["type"], added["op"], added["reminders"]) == ("reminders", "add", [listed])
    # AND it is not one of the member's scheduled messages, nor anyone else's reminder
    assert realm.member.get("/scheduled_messages").json["scheduled_messages"] == []
    assert realm.owner.get("/reminders").json["reminders"] == []
    gone = realm.member.delete(f"/scheduled_messages/{reminder_id}")
    assert (gone.status, gone.json["msg"]) == (404, "There is no scheduled message with this ID.")
    # WHEN its time comes, THEN the notification bot sends it to the member alone
    assert _fire(realm, at + 1) == ["sent"]
    drain_events()
    newest = realm.member.get("/messages", {"anchor": "newest", "num_before": 1,
                                            "num_after": 0, "apply_markdown": False}).json
    [delivered] = newest["messages"]
    assert delivered["sender_full_name"] == "Notification Bot"
    assert [r["id"] for r in delivered["display_recipient"]] == sorted(
        [realm.member.user_id, delivered["sender_id"]])
    assert delivered["content"] == listed["content"]
    assert realm.member.get("/reminders").json["reminders"] == []
    removed = fetch_events(realm.member, queue_id, added["id"])
    assert {"type": "reminders", "op": "remove", "reminder_id": reminder_id} in [
        {k: v for k, v in e.items() if k != "id"} for e in removed]


def test_reminders_are_deleted_and_checked(realm, register_queue, fetch_events,
                                           drain_events, advertise):
    advertise(415)
    channel(realm.owner, "secret", [realm.owner], invite_only=True)
    hidden = send(realm.owner, "secret", "plans")
    mine = realm.member.post("/messages", {"type": "direct", "to": f"[{realm.owner.user_id}]",
                                           "content": "hello"}).json["id"]
    at = int(time.time()) + 600
    # Only messages the caller can read, a future time, a note of at most 1,000 characters
    assert error(_remind(realm.member, hidden, at)) == "Message not found, or you cannot see it."
    assert "in the future" in error(_remind(realm.member, mine, int(time.time()) - 5))
    assert "at most 1000" in error(_remind(realm.member, mine, at, note="x" * 1001))
    reminder_id = _remind(realm.member, mine, at).json["reminder_id"]
    content = realm.member.get("/reminders").json["reminders"][0]["content"]
    assert "[a direct message]" in content
    drain_events()
    queue_id = register_queue(realm.member, event_types=["reminders"])["queue_id"]
    # Another user's reminder is not found; the member's own is deleted, with an event
    others = realm.owner.delete(f"/reminders/{reminder_id}")
    assert (others.status, others.json["msg"]) == (404, "There is no reminder with this ID.")
    assert realm.member.delete(f"/reminders/{reminder_id}").ok
    assert realm.member.delete(f"/reminders/{reminder_id}").status == 404
    drain_events()
    [removed] = fetch_events(realm.member, queue_id)
    assert (removed["op"], removed["reminder_id"]) == ("remove", reminder_id)
    assert _fire(realm, at + 1) == []   # its schedule went with it
