"""Bulk moves: batches within the transaction limit, crash and retry, one event per batch.

Most tests shrink the batch to 10 messages, so a few dozen messages exercise the same
logic as thousands (the 10,000-message figures are in bench/message_moves.py).
"""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib.actions.messages import move as message_move
from chalicelib.actions.messages.edit import EditRequest, do_update_message
from chalicelib.actions.messages.move_resume import find_resumable_move
from chalicelib.core.principal import Principal
from chalicelib.models.base import transaction
from chalicelib.models.events import Outbox
from chalicelib.models.message_moves import MessageMove
from chalicelib.models.messages import Message
from chalicelib.models.realms import get_realm
from tests.functional.edit_helpers import bulk_messages, channel, fetch, send, topic_ids

BATCH = 10


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(message_move, "MESSAGES_PER_BATCH", BATCH)


@pytest.fixture
def big(realm):
    """Channel 'big' (owner and member) with 45 messages of the member in topic 'old'."""
    stream_id = channel(realm.owner, "big", [realm.owner, realm.member])
    return bulk_messages(realm.realm_id, realm.member.user_id, stream_id, "old", 45)


class CrashingTransactions:
    """Stands in for transaction(): the commit number `at` fails, as a Lambda timeout would."""

    def __init__(self, at: int | None = None) -> None:
        self.at, self.commits, self.sizes = at, 0, []

    def __call__(self):
        tx = transaction()
        commit = tx._commit

        def counted() -> Any:
            self.commits += 1
            self.sizes.append(len(tx._put_items) + len(tx._update_items)
                              + len(tx._delete_items) + len(tx._condition_check_items))
            if self.commits == self.at:
                raise RuntimeError("the function timed out")
            return commit()

        tx._commit = counted
        return tx


def move(account, message_id: int, **params):
    return account.patch(f"/messages/{message_id}", params)


def bot_messages(account, stream: str, topic: str) -> list[str]:
    response = account.get("/messages", {
        "anchor": "newest", "num_before": 100, "num_after": 0, "apply_markdown": False,
        "narrow": [{"operator": "channel", "operand": stream},
                   {"operator": "topic", "operand": topic}]})
    return [m["content"] for m in response.json["messages"]
            if m["sender_full_name"] == "Notification Bot"]


def history(realm, ids: list[int]) -> list[list[dict[str, Any]]]:
    by_id = {m.message_id: m for m in Message.batch_get([(realm.realm_id, i) for i in ids])}
    return [by_id[i].edit_history or [] for i in ids]


def outbox_types(realm_id: int) -> dict[str, int]:
    """Event records of the realm by type (a test-only Scan), leaving out user creation."""
    counts: dict[str, int] = {}
    for item in Outbox.scan(Outbox.realm_id == realm_id):
        kind = item.event["type"]
        if kind in ("update_message", "message", "delete_message"):
            counts[kind] = counts.get(kind, 0) + 1
    return counts


@pytest.mark.parametrize("mode, first", [("change_all", 0), ("change_later", 5)])
def test_a_crash_between_batches_then_a_retry_moves_every_message_once(
        realm, big, small_batches, monkeypatch, register_queue, fetch_events, drain_events,
        mode, first):
    queue_id = register_queue(realm.owner, event_types=["update_message"])["queue_id"]
    expected = big[first:]
    # GIVEN a request whose third batch fails (the first two are written)
    crash = CrashingTransactions(at=3)
    monkeypatch.setattr(message_move, "transaction", crash)
    failed = move(realm.member, big[first], topic="new", propagate_mode=mode,
                  send_notification_to_old_thread=True)
    assert failed.status == 500
    assert topic_ids(realm.member, "big", "new") == expected[:2 * BATCH]
    record = MessageMove.get(realm.realm_id, big[first])
    assert record.status == "moving"
    # WHEN the client retries the same request
    monkeypatch.setattr(message_move, "transaction", transaction)
    response = move(realm.member, big[first], topic="new", propagate_mode=mode,
                    send_notification_to_old_thread=True)
    assert response.ok, response.json
    # THEN every message moved exactly once, each with one entry of the same edit
    *moved, notice = topic_ids(realm.member, "big", "new")
    assert moved == expected
    assert fetch(realm.member, notice)["sender_full_name"] == "Notification Bot"
    assert [len(h) for h in history(realm, expected)] == [1] * len(expected)
    assert {h[0]["timestamp"] for h in history(realm, expected)} == {record.edit_timestamp}
    assert {(h[0]["prev_topic"], h[0]["topic"]) for h in history(realm, expected)} == {
        ("old", "new")}
    assert MessageMove.get(realm.realm_id, big[first]).status == "done"
    # AND the notices count the whole move, not what the retry had left
    who = f"@_**Max Member|{realm.member.user_id}**"
    if mode == "change_all":
        assert bot_messages(realm.member, "big", "new") == [
            f"This topic was moved here from #**big>old** by {who}."]
        assert bot_messages(realm.member, "big", "old") == [
            f"This topic was moved to #**big>new** by {who}."]
    else:
        assert bot_messages(realm.member, "big", "new") == [
            f"40 messages were moved here from #**big>old** by {who}."]
        assert bot_messages(realm.member, "big", "old") == [
            f"40 messages were moved from this topic to #**big>new** by {who}."]
    assert topic_ids(realm.member, "big", "old")[:-1] == big[:first]
    # AND one update_message record per batch, not per message or per user; each
    # moved message is in exactly one event (the target is named in all of them)
    batches = -(-len(expected) // BATCH)
    assert outbox_types(realm.realm_id) == {"update_message": batches, "message": 2}
    drain_events()
    events = fetch_events(realm.owner, queue_id)
    assert len(events) == batches
    named = [i for e in events for i in e["message_ids"] if i != big[first]]
    assert sorted(named) == expected[1:]
    assert {e["edit_timestamp"] for e in events} == {record.edit_timestamp}
    # AND a third identical request is a quiet success that changes nothing
    assert move(realm.member, big[first], topic="new", propagate_mode=mode,
                send_notification_to_old_thread=True).ok
    assert outbox_types(realm.realm_id) == {"update_message": batches, "message": 2}


def test_a_crash_after_the_last_batch_leaves_the_topic_list_to_the_retry(
        realm, big, small_batches, monkeypatch):
    stream_id = realm.owner.get("/get_stream_id", {"stream": "big"}).json["stream_id"]
    real_update = message_move._update_topics
    calls = {"n": 0}

    def crash_once(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("the function timed out")
        return real_update(*args, **kwargs)

    monkeypatch.setattr(message_move, "_update_topics", crash_once)
    assert move(realm.member, big[0], topic="new", propagate_mode="change_all").status == 500
    assert topic_ids(realm.member, "big", "new")[:-1] == big
    assert MessageMove.get(realm.realm_id, big[0]).status == "done"
    # WHEN the client retries: nothing is written again, the topic list catches up
    assert move(realm.member, big[0], topic="new", propagate_mode="change_all").ok
    topics = realm.member.get(f"/users/me/{stream_id}/topics").json["topics"]
    [notice] = topic_ids(realm.member, "big", "new")[-1:]
    assert topics == [{"name": "new", "max_id": notice}]
    assert bot_messages(realm.member, "big", "new") != [] and len(
        bot_messages(realm.member, "big", "new")) == 1


def test_a_case_only_rename_resumes_without_moving_a_message_twice(
        realm, small_batches, monkeypatch):
    stream_id = channel(realm.owner, "big", [realm.owner, realm.member])
    ids = bulk_messages(realm.realm_id, realm.member.user_id, stream_id, "plans", 25)
    monkeypatch.setattr(message_move, "transaction", CrashingTransactions(at=2))
    params = {"topic": "Plans", "propagate_mode": "change_all",
              "send_notification_to_new_thread": False}
    assert move(realm.member, ids[0], **params).status == 500
    monkeypatch.setattr(message_move, "transaction", transaction)
    assert move(realm.member, ids[0], **params).ok
    assert [len(h) for h in history(realm, ids)] == [1] * len(ids)
    assert {fetch(realm.member, i)["subject"] for i in (ids[0], ids[-1])} == {"Plans"}
    topics = realm.member.get(f"/users/me/{stream_id}/topics").json["topics"]
    assert topics == [{"name": "Plans", "max_id": ids[-1]}]


def test_stale_retries_after_another_finished_change_nothing(realm, small_batches,
                                                             monkeypatch):
    # GIVEN a crashed move of 40 messages (20 moved), and two retries that have read what
    # is left but not written yet; a message reaches the old topic between their reads
    stream_id = channel(realm.owner, "big", [realm.owner, realm.member])
    ids = bulk_messages(realm.realm_id, realm.member.user_id, stream_id, "old", 40)
    monkeypatch.setattr(message_move, "transaction", CrashingTransactions(at=3))
    assert move(realm.member, ids[0], topic="new", propagate_mode="change_all").status == 500
    spy = CrashingTransactions()
    monkeypatch.setattr(message_move, "transaction", spy)
    caller = Principal(realm.realm_id, realm.member.user_id, realm.member.email, 400, False)
    realm_obj = get_realm(realm.realm_id)
    target = Message.get(realm.realm_id, ids[0])
    first = find_resumable_move(caller, realm_obj, target, "new", None, "change_all")
    late = send(realm.owner, "big", "old", "sent during the move")
    second = find_resumable_move(caller, realm_obj, target, "new", None, "change_all")
    assert first and second and len(first.messages) == 20 and len(second.messages) == 21
    # WHEN the first completes the move, then the second writes what it read
    for plan in (first, second):
        assert message_move.execute_edit(caller, realm_obj, target, None, plan) == {
            "detached_uploads": []}
    # THEN no message moved twice, the late message stays, and the notice went out once
    assert [len(h) for h in history(realm, ids)] == [1] * len(ids)
    assert topic_ids(realm.member, "big", "old") == [late]
    assert len(bot_messages(realm.member, "big", "new")) == 1
    assert min(spy.sizes) >= 1   # no empty transaction (DynamoDB refuses them)


def test_a_crash_before_the_first_batch_leaves_nothing_to_resume(realm, big, small_batches,
                                                                 monkeypatch):
    monkeypatch.setattr(message_move, "transaction", CrashingTransactions(at=1))
    assert move(realm.member, big[0], topic="new", propagate_mode="change_all").status == 500
    assert MessageMove.get_or_none(realm.realm_id, big[0]) is None
    assert topic_ids(realm.member, "big", "old") == big
    monkeypatch.setattr(message_move, "transaction", transaction)
    assert move(realm.member, big[0], topic="new", propagate_mode="change_all").ok
    assert topic_ids(realm.member, "big", "new")[:-1] == big


def test_full_size_batches_stay_within_the_transaction_limit(realm, monkeypatch):
    # GIVEN a topic of two full batches and one more message, moved with both notices
    stream_id = channel(realm.owner, "big", [realm.owner, realm.member])
    other = channel(realm.owner, "other", [realm.owner, realm.member])
    size = 2 * message_move.MESSAGES_PER_BATCH + 1
    ids = bulk_messages(realm.realm_id, realm.member.user_id, stream_id, "old", size)
    spy = CrashingTransactions()
    monkeypatch.setattr(message_move, "transaction", spy)
    caller = Principal(realm.realm_id, realm.owner.user_id, realm.owner.email, 100, False)
    do_update_message(caller, EditRequest(ids[-1], topic="new", stream_id=other,
                                          propagate_mode="change_all",
                                          send_notification_to_old_thread=True))
    # THEN three transactions, none above DynamoDB's 100 items
    assert spy.commits == 3 and max(spy.sizes) <= 100
    assert topic_ids(realm.owner, "other", "new")[:-1] == ids
