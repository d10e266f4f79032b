"""What real-time delivery costs: the waiting long-poll's wake-up, the audience's reads,
payloads stored once, redelivery into queues that moved on."""
from __future__ import annotations

import json
import threading
import time
from typing import Any

from chalicelib.core.principal import Principal
from chalicelib.delivery import queues
from chalicelib.fanout import audience
from chalicelib.fanout.batch import handle_stream_batch
from chalicelib.models.events import EventQueue, QueueEvent
from chalicelib.realtime import reader
from chalicelib.realtime.reader import get_events


def principal(account) -> Principal:
    return Principal(account.realm_id, account.user_id, account.email, account.role, False)


def messages(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "message"]


def waiting_poll(realm, register_queue, monkeypatch
                 ) -> tuple[str, threading.Thread, dict[str, Any], list[int]]:
    """A member's blocking GET /events on a fresh queue, waiting on its wake queue, that
    would check its queue only every 10 s: (queue id, the waiting thread, where its
    answer lands as `body` at time `at`, one entry per read of its queue)."""
    monkeypatch.setenv("LONGPOLL_WAIT_SECONDS", "20")
    monkeypatch.setenv("LONGPOLL_CHECK_SECONDS", "10")
    queue_id = register_queue(realm.member, event_types=["message"])["queue_id"]
    reads: list[int] = []
    real_read = reader.read_chunks
    monkeypatch.setattr(reader, "read_chunks", lambda *a: (reads.append(1), real_read(*a))[1])
    result: dict[str, Any] = {}

    def wait() -> None:
        result["body"] = get_events(principal(realm.member), queue_id, -1, False)
        result["at"] = time.monotonic()

    waiter = threading.Thread(target=wait)
    waiter.start()
    deadline = time.monotonic() + 10
    while EventQueue.get(queue_id).wake_url is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return queue_id, waiter, result, reads


def test_a_waiting_poll_is_woken_by_an_append_and_reads_little_while_idle(
        realm, register_queue, drain_events, monkeypatch):
    # GIVEN a blocking GET /events that would check its queue only every 10 s
    _, waiter, result, reads = waiting_poll(realm, register_queue, monkeypatch)
    time.sleep(1.5)   # idle: the waiter must not be reading its queue meanwhile
    idle_reads = len(reads)
    # WHEN a message is fanned out to the queue
    assert realm.owner.post("/messages", {"type": "direct", "to": [realm.member.user_id],
                                          "content": "wake up"}).ok
    drain_events()
    appended = time.monotonic()
    waiter.join(timeout=15)
    # THEN the waiter returns it long before its next check, having read once while idle
    assert [m["message"]["content"] for m in messages(result["body"]["events"])] == ["wake up"]
    assert result["at"] - appended < 5
    assert idle_reads == 1


def test_a_woken_poll_answers_with_the_events_its_wake_up_carried(
        realm, register_queue, drain_events, monkeypatch):
    # GIVEN a waiting GET /events
    queue_id, waiter, result, reads = waiting_poll(realm, register_queue, monkeypatch)
    time.sleep(0.5)
    before_wake = len(reads)
    # WHEN two messages are fanned out to its queue in one batch
    with drain_events.paused():
        for content in ("one", "two"):
            assert realm.owner.post("/messages", {
                "type": "direct", "to": [realm.member.user_id], "content": content}).ok
    drain_events()
    waiter.join(timeout=15)
    # THEN it answers with them without reading its queue again, exactly as stored
    assert [m["message"]["content"] for m in messages(result["body"]["events"])] == [
        "one", "two"]
    assert len(reads) == before_wake
    assert result["body"]["events"] == reader.read_events(queue_id, -1)


def test_a_channel_audience_reads_only_its_subscribers_queues(realm, register_queue,
                                                             drain_events, monkeypatch):
    # GIVEN 21 subscribers of a private channel and 5 other users, all with queues
    subscribers = [realm.add_user(f"Sub {n}") for n in range(21)]
    others = [realm.add_user(f"Other {n}") for n in range(5)]
    principals = [s.user_id for s in subscribers]
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "twenty-one"}], "principals": principals,
        "invite_only": True}).ok
    stream_id = next(s["stream_id"] for s in subscribers[0].get(
        "/users/me/subscriptions").json["subscriptions"] if s["name"] == "twenty-one")
    wanted = {a.user_id: register_queue(a, event_types=["message"])["queue_id"]
              for a in subscribers}
    strangers = {register_queue(a, event_types=["message"])["queue_id"] for a in others}
    drain_events()
    # WHEN one of them posts, with the realm-wide queue listing forbidden
    monkeypatch.setattr(audience, "queues_of_realm", lambda realm_id: 1 / 0)
    loaded: list[str] = []
    real_load = queues.load_queues
    monkeypatch.setattr(queues, "load_queues", lambda ids, **options: (
        loaded.extend(ids := list(ids)), real_load(ids, **options))[1])
    assert subscribers[0].post("/messages", {"type": "stream", "to": stream_id,
                                             "topic": "t", "content": "hello 21"}).ok
    assert drain_events() == {"batchItemFailures": []}
    # THEN exactly the subscribers' queues were read, and each got the message
    assert set(loaded) >= set(wanted.values()) and not set(loaded) & strangers
    for account in subscribers:
        events = get_events(principal(account), wanted[account.user_id], -1, True)["events"]
        assert [m["message"]["content"] for m in messages(events)] == ["hello 21"]


def test_a_large_message_is_stored_once_and_queues_refer_to_it(realm, register_queue,
                                                              drain_events, fetch_events):
    # GIVEN three queues: two raw (the default) and one rendering Markdown
    raw = [register_queue(a, event_types=["message"])["queue_id"]
           for a in (realm.admin, realm.owner)]
    rendered = register_queue(realm.owner, event_types=["message"],
                              apply_markdown=True)["queue_id"]
    content = "**long** " * 400
    # WHEN a large direct message to all of them is fanned out
    assert realm.member.post("/messages", {"type": "direct", "content": content, "to": [
        realm.admin.user_id, realm.owner.user_id]}).ok
    drain_events()
    # THEN each queue holds a small reference, not the message
    refs = []
    for queue_id in (*raw, rendered):
        [chunk] = [c for c in QueueEvent.query(queue_id) if c.sk.startswith("e#")]
        assert len(json.dumps(chunk.events)) < 300
        refs.append(chunk.events[0]["_payload"])
    # AND the two raw queues share one stored form; the rendering queue has the other
    assert refs[0] == refs[1] != refs[2]
    # AND clients get the whole message in their form, with their own flags
    [admin_view] = messages(fetch_events(realm.admin, raw[0]))
    [owner_html] = messages(fetch_events(realm.owner, rendered))
    assert admin_view["message"]["content"] in (content, content.strip())
    assert owner_html["message"]["content"].startswith("<p><strong>long</strong>")
    assert admin_view["flags"] == [] and "_payload" not in admin_view


def test_redelivery_after_later_appends_adds_nothing(realm, register_queue, drain_events,
                                                     fetch_events):
    queue_id = register_queue(realm.member, event_types=["realm_user"])["queue_id"]
    realm.add_user("First Person")
    first_batch = drain_events.read()
    assert handle_stream_batch({"Records": first_batch}) == {"batchItemFailures": []}
    realm.add_user("Second Person")
    drain_events()
    # WHEN the first batch is delivered again after the queue moved on
    assert handle_stream_batch({"Records": first_batch}) == {"batchItemFailures": []}
    # THEN each event is there once
    assert [e["person"]["full_name"] for e in fetch_events(realm.member, queue_id)] == [
        "First Person", "Second Person"]
