"""PATCH /messages/{id}: editing content, its rules, races and events."""
from __future__ import annotations

import hashlib
import threading

import pytest

from chalicelib.actions.messages.edit import EditRequest, do_update_message
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from tests.functional.edit_helpers import channel, fetch, make_old, send


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def edit(account, message_id: int, **params):
    return account.patch(f"/messages/{message_id}", params)


@pytest.fixture
def message(realm):
    channel(realm.owner, "talk", [realm.owner, realm.member, realm.admin])
    return send(realm.member, "talk", "plans", "first **draft**")


def test_sender_edits_content_and_history_records_it(realm, message, register_queue,
                                                      fetch_events, drain_events):
    queue_id = register_queue(realm.admin, event_types=["update_message"])["queue_id"]
    response = edit(realm.member, message, content="second *draft* @**Adam Admin**",
                    prev_content_sha256=sha("first **draft**"))
    assert response.ok, response.json
    assert response.json["detached_uploads"] == []
    stored = fetch(realm.member, message)
    assert stored["content"] == ("<p>second <em>draft</em> "
                                 f'<span class="user-mention" data-user-id="{realm.admin.user_id}">'
                                 "@Adam Admin</span></p>")
    [entry] = stored["edit_history"]
    assert entry["prev_content"] == "first **draft**"
    assert entry["prev_rendered_content"] == "<p>first <strong>draft</strong></p>"
    assert entry["user_id"] == realm.member.user_id
    assert stored["last_edit_timestamp"] == entry["timestamp"]
    assert "last_moved_timestamp" not in stored and "prev_topic" not in entry
    drain_events()
    [event] = fetch_events(realm.admin, queue_id)
    assert event["type"] == "update_message" and event["message_id"] == message
    assert event["message_ids"] == [message] and event["rendering_only"] is False
    assert event["orig_content"] == "first **draft**"
    assert event["content"] == "second *draft* @**Adam Admin**"
    assert event["orig_rendered_content"] == "<p>first <strong>draft</strong></p>"
    assert event["stream_id"] == stored["stream_id"] and event["stream_name"] == "talk"
    assert event["flags"] == ["mentioned"]   # the admin was mentioned by the edit
    assert "orig_subject" not in event and "propagate_mode" not in event
    # a second edit goes on top of the history, newest first
    assert edit(realm.member, message, content="third").ok
    history = fetch(realm.member, message)["edit_history"]
    assert [h["prev_content"] for h in history] == ["second *draft* @**Adam Admin**",
                                                     "first **draft**"]


def test_who_may_edit_content(realm, message):
    denied = edit(realm.admin, message, content="admin rewrite")
    assert denied.status == 400 and denied.json["msg"] == \
        "You are not allowed to edit this message"
    assert denied.json["code"] == "BAD_REQUEST"
    assert realm.owner.patch("/realm", {"allow_message_editing": False}).ok
    off = edit(realm.member, message, content="x")
    assert off.json["msg"] == "Message editing is turned off in this organization"
    assert off.json["code"] == "BAD_REQUEST"
    # moving is governed by its own settings, not by allow_message_editing
    assert edit(realm.member, message, topic="elsewhere",
                send_notification_to_new_thread=False).ok
    assert realm.owner.patch("/realm", {"allow_message_editing": True,
                                        "message_content_edit_limit_seconds": 600}).ok
    # a grace period of 20 seconds covers an edit started in time
    make_old(realm.realm_id, [message], 615)
    assert edit(realm.member, message, content="just in time").ok
    make_old(realm.realm_id, [message], 700)
    late = edit(realm.member, message, content="x")
    assert late.json["msg"] == "This message is too old for you to edit"
    assert late.json["code"] == "BAD_REQUEST"
    assert realm.owner.patch("/realm", {"message_content_edit_limit_seconds": "unlimited"}).ok
    assert edit(realm.member, message, content="x").ok


def test_content_rules(realm, message):
    assert "too long" in edit(realm.member, message, content="x" * 10001).json["msg"]
    assert edit(realm.member, message, content="   ").json["msg"] == \
        "A message needs some content"
    assert edit(realm.member, message, content="first **draft**").json["msg"] == \
        "The request changes nothing"
    stale = edit(realm.member, message, content="new", prev_content_sha256=sha("other"))
    assert (stale.status, stale.json["code"], stale.json["msg"]) == (
        400, "EXPECTATION_MISMATCH",
        "'prev_content_sha256' value does not match the expected value.")
    assert fetch(realm.member, message)["content"] == "<p>first <strong>draft</strong></p>"
    # content and topic may change together, in one history entry
    assert edit(realm.member, message, content="both", topic="elsewhere",
                send_notification_to_new_thread=False).ok
    [entry] = fetch(realm.member, message)["edit_history"]
    assert (entry["prev_content"], entry["prev_topic"], entry["topic"]) == (
        "first **draft**", "plans", "elsewhere")


def test_direct_message_edit(realm, register_queue, fetch_events, drain_events):
    queue_id = register_queue(realm.owner, event_types=["update_message"])["queue_id"]
    dm = realm.member.post("/messages", {"type": "direct", "to": [realm.owner.user_id],
                                         "content": "hi"}).json["id"]
    assert edit(realm.member, dm, content="hello").ok
    drain_events()
    [event] = fetch_events(realm.owner, queue_id)
    assert event["message_ids"] == [dm] and "stream_id" not in event
    assert edit(realm.admin, dm, content="x").json["msg"] == "Message not found, or you cannot see it."
    # a participant who did not send it may not edit it
    assert edit(realm.owner, dm, content="x").json["msg"] == \
        "You are not allowed to edit this message"


def test_wildcard_mention_in_an_edit_needs_permission(realm):
    members = [realm.add_user(f"Person {n}") for n in range(16)] + [realm.member]
    channel(realm.owner, "big", members)
    message = send(realm.member, "big", "t", "hello")
    refused = edit(realm.member, message, content="hello @**all**")
    assert refused.json["code"] == "STREAM_WILDCARD_MENTION_NOT_ALLOWED"
    refused = edit(realm.member, message, content="hello @**topic**")
    assert refused.json["code"] == "TOPIC_WILDCARD_MENTION_NOT_ALLOWED"
    assert refused.json["msg"] == \
        "You are not allowed to mention everyone in this topic."
    assert fetch(realm.member, message)["content"] == "<p>hello</p>"
    # those in can_mention_many_users_group may; so may anyone in a small channel
    assert realm.owner.patch("/realm", {"can_mention_many_users_group": {
        "new": {"direct_members": [realm.member.user_id], "direct_subgroups": []}}}).ok
    assert edit(realm.member, message, content="hello @**all**").ok
    channel(realm.owner, "small", [realm.moderator])
    small = send(realm.moderator, "small", "t", "hi")
    assert edit(realm.moderator, small, content="hi @**all**").ok


def test_racing_editors_with_the_same_base_exactly_one_wins(realm, message):
    caller = Principal(realm.realm_id, realm.member.user_id, realm.member.email, 400, False)
    base = sha("first **draft**")
    results: list[object] = []
    start = threading.Barrier(4)

    def race(n: int) -> None:
        start.wait()
        try:
            do_update_message(caller, EditRequest(message, content=f"version {n}",
                                                  prev_content_sha256=base))
            results.append(n)
        except ApiError as error:
            results.append(error.msg)

    threads = [threading.Thread(target=race, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [r for r in results if isinstance(r, int)]
    assert len(winners) == 1 and len(results) == 4
    assert all("prev_content_sha256" in str(r) for r in results if not isinstance(r, int))
    stored = fetch(realm.member, message)
    assert stored["content"] == f"<p>version {winners[0]}</p>"
    assert len(stored["edit_history"]) == 1
