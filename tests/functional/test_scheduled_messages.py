"""Scheduled messages: creating, listing, editing and deleting them through the API, their
registration state and events, and their delivery by their one-time schedule (fired
here as the local stack's runner fires them: infra/local/schedules.py)."""
from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import boto3
import pytest

from infra.local.schedules import fire_due
from tests.functional.edit_helpers import channel
from tests.functional.read_state_helpers import register_state


def _fire(realm, at: int, keep: bool = False) -> list:
    """Fires the realm's schedules due at `at` (seconds), as EventBridge Scheduler would."""
    from app import app
    return fire_due(app.handler_map["scheduled_messages"],
                    now=datetime.fromtimestamp(at, UTC),
                    where=lambda payload: payload["realm_id"] == realm.realm_id, keep=keep)


def _schedule(account, **params) -> int:
    response = account.post("/scheduled_messages", params)
    assert response.ok, response.json
    return response.json["scheduled_message_id"]


def _listed(account) -> list[dict]:
    response = account.get("/scheduled_messages")
    assert response.ok, response.json
    return response.json["scheduled_messages"]


def _newest(account, narrow: list) -> list[dict]:
    response = account.get("/messages", {"anchor": "newest", "num_before": 20,
                                         "num_after": 0, "narrow": narrow,
                                         "apply_markdown": False})
    assert response.ok, response.json
    return response.json["messages"]


def _schedules_named(realm) -> list[str]:
    client = boto3.client("scheduler", region_name="us-east-1")
    return [s["Name"] for s in client.list_schedules()["Schedules"]
            if f"sm-{realm.realm_id}-" in s["Name"]]


def test_create_list_edit_delete_with_state_and_events(realm, register_queue,
                                                       fetch_events, drain_events):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member])
    queue_id = register_queue(realm.owner, event_types=["scheduled_messages"])["queue_id"]
    soon, later = int(time.time()) + 3600, int(time.time()) + 7200
    # WHEN the owner schedules a channel message and a direct message
    in_channel = _schedule(realm.owner, type="channel", to=json.dumps(stream_id),
                           topic="plans", content="**Later**",
                           scheduled_delivery_timestamp=later)
    direct = _schedule(realm.owner, type="direct", to=json.dumps([realm.member.user_id]),
                       content="hi", scheduled_delivery_timestamp=soon)
    # THEN both are listed, soonest first, with the reference's fields
    listed = _listed(realm.owner)
    assert [m["scheduled_message_id"] for m in listed] == [direct, in_channel]
    assert listed[0] == {"scheduled_message_id": direct, "type": "private",
                         "to": [realm.member.user_id], "content": "hi",
                         "rendered_content": "<p>hi</p>",
                         "scheduled_delivery_timestamp": soon, "failed": False}
    assert listed[1]["to"] == stream_id and listed[1]["topic"] == "plans"
    assert listed[1]["rendered_content"] == "<p><strong>Later</strong></p>"
    assert register_state(realm.owner, "scheduled_messages")["scheduled_messages"] == listed
    assert _listed(realm.member) == []
    # AND each has a one-time schedule
    assert len(_schedules_named(realm)) == 2
    # WHEN one is edited and the other deleted
    assert realm.owner.patch(f"/scheduled_messages/{in_channel}",
                             {"content": "edited", "topic": "new plans"}).ok
    assert realm.owner.delete(f"/scheduled_messages/{direct}").ok
    listed = _listed(realm.owner)
    assert [(m["content"], m["topic"]) for m in listed] == [("edited", "new plans")]
    assert len(_schedules_named(realm)) == 1
    drain_events()
    events = [(e["op"], e.get("scheduled_message_id")
               or (e.get("scheduled_message") or {}).get("scheduled_message_id")
               or [m["scheduled_message_id"] for m in e.get("scheduled_messages", [])])
              for e in fetch_events(realm.owner, queue_id)
              if e["type"] == "scheduled_messages"]
    assert events == [("add", [in_channel]), ("add", [direct]), ("update", in_channel),
                      ("remove", direct)]


def test_errors(realm):
    stream_id = channel(realm.owner, "general", [realm.owner])
    future = int(time.time()) + 3600

    def refused(method: str, path: str, status: int = 400, **params) -> dict:
        response = getattr(realm.owner, method)(path, params)
        assert response.status == status, response.json
        return response.json

    # A time in the past
    refused("post", "/scheduled_messages", type="channel", to=json.dumps(stream_id),
            topic="t", content="x", scheduled_delivery_timestamp=int(time.time()) - 10)
    # A channel that does not exist, a user who does not exist
    assert refused("post", "/scheduled_messages", type="stream", to="999999", topic="t",
                   content="x", scheduled_delivery_timestamp=future)["code"] in (
        "STREAM_DOES_NOT_EXIST", "BAD_REQUEST")
    assert refused("post", "/scheduled_messages", type="direct", to="[999999]",
                   content="x", scheduled_delivery_timestamp=future)["msg"] == \
        "No user with ID 999999 exists"
    # Empty content; a missing required parameter
    refused("post", "/scheduled_messages", type="direct",
            to=json.dumps([realm.member.user_id]), content=" ",
            scheduled_delivery_timestamp=future)
    assert refused("post", "/scheduled_messages", type="direct", to="[1]",
                   content="x")["code"] == "REQUEST_VARIABLE_MISSING"
    # Another user's or an unknown scheduled message: 404
    mine = _schedule(realm.owner, type="direct", to=json.dumps([realm.member.user_id]),
                     content="x", scheduled_delivery_timestamp=future)
    for account in (realm.member,):
        response = account.delete(f"/scheduled_messages/{mine}")
        assert response.status == 404 and response.json["code"] == "BAD_REQUEST"
        response = account.patch(f"/scheduled_messages/{mine}", {"content": "y"})
        assert response.status == 404
    refused("delete", "/scheduled_messages/999999", status=404)
    # Changing the type needs a recipient
    refused("patch", f"/scheduled_messages/{mine}", type="channel")


def test_delivered_once_at_its_time(realm, drain_events):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member])
    at = int(time.time()) + 600
    scheduled = _schedule(realm.owner, type="stream", to=json.dumps(stream_id),
                          topic="plans", content="on time", scheduled_delivery_timestamp=at)
    # WHEN its time has not come THEN nothing is sent
    assert _fire(realm, at - 60) == []
    assert [m["content"] for m in _newest(realm.member, [])] == []
    # WHEN it comes, and the schedule fires twice (at-least-once delivery)
    assert _fire(realm, at, keep=True) == ["sent"]
    assert _fire(realm, at) == ["gone"]
    # THEN the message is sent once, by the owner, where it was scheduled
    sent = _newest(realm.member, [{"operator": "channel", "operand": stream_id}])
    assert [(m["content"], m["subject"], m["sender_id"]) for m in sent] == [
        ("on time", "plans", realm.owner.user_id)]
    # AND it is no longer listed; the schedule is gone; the member has it unread
    assert _listed(realm.owner) == []
    assert _schedules_named(realm) == []
    assert "read" not in sent[0]["flags"]
    assert scheduled


def test_delivered_with_mentions_and_an_upload(realm, drain_events, advertise):
    """The delivery renders and links like any send (mentions of a user and a group, an
    uploaded file): what its function's role must allow (tests/unit/test_least_privilege)."""
    advertise(471)  # attachments list their messages (message_ids from 472)
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member])
    group = realm.owner.post("/user_groups/create", {"name": "crew", "description": "",
                                                     "members": [realm.member.user_id]})
    assert group.ok, group.json
    uploaded = realm.owner.upload([("file", "plan.txt", b"the plan")])
    assert uploaded.ok, uploaded.json
    at = int(time.time()) + 600
    _schedule(realm.owner, type="stream", to=json.dumps(stream_id), topic="plans",
              content=f"@**Max Member** @*crew* [plan.txt]({uploaded.json['url']})",
              scheduled_delivery_timestamp=at)
    assert _fire(realm, at) == ["sent"]
    [sent] = _newest(realm.member, [{"operator": "channel", "operand": stream_id}])
    assert sent["sender_id"] == realm.owner.user_id
    assert "mentioned" in sent["flags"]
    attachments = realm.owner.get("/attachments").json["attachments"]
    assert [m["id"] for a in attachments for m in a["messages"]] == [sent["id"]]


def test_edited_time_moves_the_schedule_and_deleted_sends_nothing(realm):
    at = int(time.time()) + 600
    moved = _schedule(realm.owner, type="direct", to=json.dumps([realm.member.user_id]),
                      content="moved", scheduled_delivery_timestamp=at)
    deleted = _schedule(realm.owner, type="direct", to=json.dumps([realm.member.user_id]),
                        content="deleted", scheduled_delivery_timestamp=at)
    assert realm.owner.patch(f"/scheduled_messages/{moved}",
                             {"scheduled_delivery_timestamp": at + 3600}).ok
    assert realm.owner.delete(f"/scheduled_messages/{deleted}").ok
    # WHEN the original time comes THEN nothing is sent
    assert _fire(realm, at) == []
    assert _newest(realm.member, []) == []
    # WHEN the new time comes THEN the moved one is sent
    assert _fire(realm, at + 3600) == ["sent"]
    assert [m["content"] for m in _newest(realm.member, [])] == ["moved"]


def test_fails_visibly_when_the_sender_lost_access(realm, register_queue, fetch_events,
                                                   drain_events):
    secret = channel(realm.owner, "secret", [realm.owner, realm.member], invite_only=True)
    at = int(time.time()) + 600
    scheduled = _schedule(realm.member, type="stream", to=json.dumps(secret), topic="t",
                          content="psst", scheduled_delivery_timestamp=at)
    queue_id = register_queue(realm.member, event_types=["scheduled_messages"])["queue_id"]
    # GIVEN the member left the private channel
    assert realm.member.delete("/users/me/subscriptions",
                               {"subscriptions": json.dumps(["secret"])}).ok
    # WHEN its time comes THEN it is not sent, and shows failed
    assert _fire(realm, at) == ["failed"]
    assert _newest(realm.owner, [{"operator": "channel", "operand": secret}]) == []
    listed = _listed(realm.member)
    assert [(m["scheduled_message_id"], m["failed"]) for m in listed] == [(scheduled, True)]
    drain_events()
    updates = [e for e in fetch_events(realm.member, queue_id)
               if e["type"] == "scheduled_messages" and e["op"] == "update"]
    assert updates and updates[-1]["scheduled_message"]["failed"] is True
    # WHEN edited without a new time THEN refused; with one THEN scheduled again
    assert not realm.member.patch(f"/scheduled_messages/{scheduled}", {"content": "y"}).ok
    response = realm.member.patch(f"/scheduled_messages/{scheduled}",
                                  {"scheduled_delivery_timestamp": at + 600})
    assert response.ok, response.json
    assert _listed(realm.member)[0]["failed"] is False
    assert len(_schedules_named(realm)) == 1


@pytest.mark.parametrize("kind", ["deactivated"])
def test_fails_when_the_sender_is_deactivated(realm, kind):
    at = int(time.time()) + 600
    scheduled = _schedule(realm.member, type="direct", to=json.dumps([realm.owner.user_id]),
                          content="x", scheduled_delivery_timestamp=at)
    assert realm.owner.delete(f"/users/{realm.member.user_id}").ok
    assert _fire(realm, at) == ["failed"]
    from chalicelib.models.channels import user_key
    from chalicelib.models.scheduled_messages import ScheduledMessage
    item = ScheduledMessage.get(user_key(realm.realm_id, realm.member.user_id), scheduled)
    assert item.failed and item.delivered_message_id is None
