"""POST /streams/{stream_id}/delete_topic: batches, `complete`, resuming, permissions."""
from __future__ import annotations

import pytest

from chalicelib.actions.messages import topic_delete
from chalicelib.core.errors import UNKNOWN_CHANNEL_ID
from chalicelib.models.messages import Message
from tests.functional.edit_helpers import bulk_messages, channel, send
from tests.functional.test_message_delete import delete_events, topics


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    """Batches of 10 messages: several batches from a few dozen messages (fast tests)."""
    monkeypatch.setattr(topic_delete, "MESSAGES_PER_BATCH", 10)


def remaining(realm_id, ids):
    return sorted(m.message_id for m in Message.batch_get([(realm_id, i) for i in ids]))


def test_admin_deletes_a_topic_in_batches_newest_first(realm, register_queue, fetch_events,
                                                      drain_events):
    # GIVEN a topic of more messages than one batch holds, and another topic
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member])
    ids = bulk_messages(realm.realm_id, realm.member.user_id, stream_id, "Old news", 25)
    kept = send(realm.member, "general", "other")
    drain_events()
    queue_id = register_queue(realm.member, event_types=["delete_message"],
                              client_capabilities={"bulk_message_deletion": True})["queue_id"]
    # WHEN an administrator deletes the topic (its name in any case)
    response = realm.admin.post(f"/streams/{stream_id}/delete_topic",
                                {"topic_name": "old NEWS"})
    # THEN it is complete: the topic's messages and its entry are gone, the other stays
    assert response.ok and response.json["complete"] is True, response.json
    assert remaining(realm.realm_id, ids) == []
    assert topics(realm.owner, stream_id) == {"other": kept}
    # AND readers heard of every message once, a batch at a time, newest batch first
    drain_events()
    events = delete_events(realm.member, queue_id, fetch_events)
    assert [len(e["message_ids"]) for e in events] == [10, 10, 5]
    assert events[0]["message_ids"] == ids[-10:]
    assert sorted(i for e in events for i in e["message_ids"]) == ids
    assert {(e["stream_id"], e["topic"]) for e in events} == {(stream_id, "Old news")}


def test_a_request_cut_short_answers_incomplete_and_the_same_request_resumes(realm,
                                                                           monkeypatch):
    stream_id = channel(realm.owner, "general", [realm.owner])
    ids = bulk_messages(realm.realm_id, realm.owner.user_id, stream_id, "big", 25)
    # GIVEN requests that may run one batch only
    monkeypatch.setattr(topic_delete, "TIME_BUDGET_SECONDS", 0)
    answers = []
    for _ in range(5):
        response = realm.owner.post(f"/streams/{stream_id}/delete_topic", {"topic_name": "big"})
        assert response.ok, response.json
        answers.append(response.json["complete"])
        if answers[-1]:
            break
        # THEN each incomplete answer left the newest messages deleted, the rest in place
        left = remaining(realm.realm_id, ids)
        assert left == ids[:len(left)] and 0 < len(left) < len(ids)
        assert topics(realm.owner, stream_id) == {"big": left[-1]}
    # (the batch that takes the last messages knows it: no extra request to learn it)
    assert answers == [False, False, True]
    assert remaining(realm.realm_id, ids) == []
    assert topics(realm.owner, stream_id) == {}


def test_a_request_that_dies_midway_is_finished_by_the_next(realm, monkeypatch):
    stream_id = channel(realm.owner, "general", [realm.owner])
    ids = bulk_messages(realm.realm_id, realm.owner.user_id, stream_id, "big", 25)
    real = topic_delete.delete_messages
    calls = []

    def dies_on_second_batch(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("Lambda timed out")
        return real(*args, **kwargs)

    monkeypatch.setattr(topic_delete, "delete_messages", dies_on_second_batch)
    failed = realm.owner.post(f"/streams/{stream_id}/delete_topic", {"topic_name": "big"})
    assert failed.status == 500
    left = remaining(realm.realm_id, ids)
    assert len(left) == len(ids) - 10
    # the topic list followed the batch that did commit
    assert topics(realm.owner, stream_id) == {"big": left[-1]}
    monkeypatch.setattr(topic_delete, "delete_messages", real)
    again = realm.owner.post(f"/streams/{stream_id}/delete_topic", {"topic_name": "big"})
    assert again.json["complete"] is True
    assert remaining(realm.realm_id, ids) == []


def joined_late(realm) -> tuple[int, int, int]:
    """A private channel with protected history, topic "t", that the administrator
    joined between two messages: (channel id, the message before, the one after)."""
    stream_id = channel(realm.owner, "secret", [realm.owner], invite_only=True,
                        history_public_to_subscribers=False)
    before = send(realm.owner, "secret", "t")
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "secret"}], "principals": [realm.admin.user_id]}).ok
    return stream_id, before, send(realm.owner, "secret", "t")


def test_protected_history_deletes_only_what_the_administrator_can_read(realm):
    stream_id, before, after = joined_late(realm)
    response = realm.admin.post(f"/streams/{stream_id}/delete_topic", {"topic_name": "t"})
    assert response.json["complete"] is True
    assert remaining(realm.realm_id, [before, after]) == [before]
    assert topics(realm.owner, stream_id) == {"t": before}


def test_the_deleter_hears_only_of_messages_they_can_read(realm, register_queue,
                                                         fetch_events, drain_events):
    # GIVEN a private channel with protected history the administrator joined late
    stream_id, before, after = joined_late(realm)
    drain_events()
    bulk = {"bulk_message_deletion": True}
    admin_queue = register_queue(realm.admin, event_types=["delete_message"],
                                 client_capabilities=bulk)["queue_id"]
    # WHEN the administrator deletes the topic (level 457: the deleter's event only for
    # messages they have content access to)
    assert realm.admin.post(f"/streams/{stream_id}/delete_topic",
                            {"topic_name": "t"}).json["complete"] is True
    drain_events()
    # THEN their event names only the message they could read, which alone is gone
    assert [e["message_ids"] for e in delete_events(realm.admin, admin_queue,
                                                    fetch_events)] == [[after]]
    assert remaining(realm.realm_id, [before, after]) == [before]
    # AND an administrator without content access deletes nothing and hears nothing
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "secret"}], "principals": [realm.admin.user_id]}).ok
    assert realm.admin.delete("/users/me/subscriptions",
                              {"subscriptions": ["secret"]}).ok
    drain_events()
    outsider = register_queue(realm.admin, event_types=["delete_message"],
                              client_capabilities=bulk)["queue_id"]
    refused = realm.admin.post(f"/streams/{stream_id}/delete_topic", {"topic_name": "t"})
    assert refused.status == 400 and refused.json["msg"] == UNKNOWN_CHANNEL_ID
    drain_events()
    assert delete_events(realm.admin, outsider, fetch_events) == []
    assert remaining(realm.realm_id, [before]) == [before]


def test_the_empty_topic_by_its_display_name(realm):
    stream_id = channel(realm.owner, "general", [realm.owner])
    message_id = send(realm.owner, "general", "")
    response = realm.owner.post(f"/streams/{stream_id}/delete_topic",
                                {"topic_name": "general chat"})
    assert response.json["complete"] is True
    assert remaining(realm.realm_id, [message_id]) == []


@pytest.mark.parametrize("who, stream, code, message", [
    ("member", "general", "UNAUTHORIZED_PRINCIPAL", "Only the organization's administrators can do this."),
    ("moderator", "general", "UNAUTHORIZED_PRINCIPAL", "Only the organization's administrators can do this."),
    ("admin", "missing", "BAD_REQUEST", "No channel you can see has that ID."),
    ("admin", "secret", "BAD_REQUEST", "No channel you can see has that ID."),   # not subscribed: no access
])
def test_refusals_delete_nothing(realm, who, stream, code, message):
    general = channel(realm.owner, "general", [realm.owner])
    secret = channel(realm.owner, "secret", [realm.owner], invite_only=True)
    message_id = send(realm.owner, "general", "t")
    stream_id = {"general": general, "secret": secret, "missing": 99999}[stream]
    response = getattr(realm, who).post(f"/streams/{stream_id}/delete_topic",
                                        {"topic_name": "t"})
    assert (response.status, response.json["code"], response.json["msg"]) == (
        400, code, message)
    assert remaining(realm.realm_id, [message_id]) == [message_id]


def test_overlong_topic_names_are_refused_before_any_read(realm):
    stream_id = channel(realm.owner, "general", [realm.owner])
    response = realm.owner.post(f"/streams/{stream_id}/delete_topic", {"topic_name": "x" * 61})
    assert (response.status, response.json["msg"]) == (
        400, "Topic too long (limit: 60 characters)")
