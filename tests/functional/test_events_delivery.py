"""What real-time delivery costs: the waiting long-poll's wake-up, the audience's reads,
payloads stored once, redelivery into queues that moved on."""
from __future__ import annotations

import json
import threading
import time
from typing import Any

from chalicelib.core.principal import Principal
from chalicelib.delivery import connections, queues
from chalicelib.fanout import audience
from chalicelib.fanout.batch import handle_stream_batch
from chalicelib.models.events import EventQueue, QueueEvent
from chalicelib.realtime import reader
from tests.iam_recorder import charged_to


def get_events(*args: Any) -> reader.GetEventsResult:
    """GET /events called directly, its calls charged to its function (LongPollHandler)
    by the least-privilege check, not to whichever one runs meanwhile (the fan-out)."""
    return charged_to("LongPollHandler", lambda: reader.get_events(*args))


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


def answered_once(realm, register_queue, drain_events, monkeypatch
                  ) -> tuple[str, int, list[int]]:
    """A member's queue with its wake queue, whose first blocking poll was answered by
    a wake-up: (queue id, the last event id the client got, reads of its queue)."""
    queue_id, waiter, result, reads = waiting_poll(realm, register_queue, monkeypatch)
    assert realm.owner.post("/messages", {"type": "direct", "to": [realm.member.user_id],
                                          "content": "first"}).ok
    drain_events()
    waiter.join(timeout=15)
    return queue_id, result["body"]["events"][-1]["id"], reads


def send_direct(realm, drain_events, *contents: str) -> None:
    """The owner's direct messages to the member, each fanned out on its own."""
    for content in contents:
        assert realm.owner.post("/messages", {
            "type": "direct", "to": [realm.member.user_id], "content": content}).ok
        drain_events()


def test_a_poll_after_an_answer_takes_the_waiting_wake_ups_without_reading_its_queue(
        realm, register_queue, drain_events, monkeypatch):
    # GIVEN a client answered once by a wake-up (its queue has its wake queue)
    queue_id, last, reads = answered_once(realm, register_queue, drain_events, monkeypatch)
    # WHEN two more messages are fanned out while it is not polling, then it polls
    send_direct(realm, drain_events, "second", "third")
    reads.clear()
    started = time.monotonic()
    answer = get_events(principal(realm.member), queue_id, last, False)
    # THEN the waiting wake-ups are its answer at once, without a read of its queue
    assert [m["message"]["content"] for m in messages(answer["events"])] == ["second", "third"]
    assert reads == [] and time.monotonic() - started < 5
    assert answer["events"] == reader.read_events(queue_id, last)


def test_a_poll_whose_wake_ups_were_lost_reads_its_queue_at_the_check(
        realm, register_queue, drain_events, monkeypatch):
    # GIVEN a queue with its wake queue, and an event appended whose wake-up was lost
    queue_id, last, _ = answered_once(realm, register_queue, drain_events, monkeypatch)
    monkeypatch.setattr(connections, "wake", lambda *a, **k: None)
    send_direct(realm, drain_events, "not woken")
    # WHEN it polls, checking its queue every second
    monkeypatch.setenv("LONGPOLL_CHECK_SECONDS", "1")
    started = time.monotonic()
    answer = get_events(principal(realm.member), queue_id, last, False)
    # THEN the event comes at the check, not with the heartbeat 20 s later
    assert [m["message"]["content"] for m in messages(answer["events"])] == ["not woken"]
    assert time.monotonic() - started < 5


def test_a_poll_whose_wake_ups_leave_a_gap_reads_its_queue(
        realm, register_queue, drain_events, monkeypatch):
    # GIVEN two events since the client's last poll, of which only the second's
    # wake-up is waiting
    queue_id, last, reads = answered_once(realm, register_queue, drain_events, monkeypatch)
    sent: list[str] = []
    real_wake = connections.wake

    def wake_all_but_the_first(url: str, **kwargs: Any) -> None:
        if sent:
            real_wake(url, **kwargs)
        sent.append(url)

    monkeypatch.setattr(connections, "wake", wake_all_but_the_first)
    send_direct(realm, drain_events, "wake-up lost", "woken")
    reads.clear()
    # WHEN it polls (its queue would be checked only after 10 s)
    started = time.monotonic()
    answer = get_events(principal(realm.member), queue_id, last, False)
    # THEN the gap sends it to its queue at once: both events, in order
    assert [m["message"]["content"] for m in messages(answer["events"])] == [
        "wake-up lost", "woken"]
    assert reads and time.monotonic() - started < 5
    assert answer["events"] == reader.read_events(queue_id, last)


def test_a_waiting_poll_with_an_id_its_queue_never_gave_out_is_refused(
        realm, register_queue, drain_events, monkeypatch):
    # GIVEN a queue with its wake queue, without and then with a wake-up waiting
    queue_id, last, _ = answered_once(realm, register_queue, drain_events, monkeypatch)
    monkeypatch.setenv("LONGPOLL_CHECK_SECONDS", "1")
    for waiting in (False, True):
        if waiting:
            send_direct(realm, drain_events, "waits")
        # WHEN the client polls with an id beyond any the queue gave out
        beyond = realm.member.get("/events", {"queue_id": queue_id,
                                              "last_event_id": last + 10**6})
        # THEN it is refused as the reference refuses it, not answered with a heartbeat
        assert beyond.status == 400 and beyond.json["code"] == "BAD_EVENT_QUEUE_ID"


def test_a_poll_with_nothing_waiting_still_ends_with_a_heartbeat(
        realm, register_queue, drain_events, monkeypatch):
    queue_id, last, _ = answered_once(realm, register_queue, drain_events, monkeypatch)
    monkeypatch.setenv("LONGPOLL_WAIT_SECONDS", "2")
    monkeypatch.setenv("LONGPOLL_CHECK_SECONDS", "1")
    answer = realm.member.get("/events", {"queue_id": queue_id, "last_event_id": last})
    assert answer.ok and [e["type"] for e in answer.json["events"]] == ["heartbeat"]
    assert answer.json["events"][0]["id"] == last + 1


def test_a_dont_block_poll_reads_its_queue_whatever_wake_ups_wait(
        realm, register_queue, drain_events, monkeypatch):
    queue_id, last, reads = answered_once(realm, register_queue, drain_events, monkeypatch)
    reads.clear()
    empty = get_events(principal(realm.member), queue_id, last, True)
    assert empty["events"] == [] and len(reads) == 1
    send_direct(realm, drain_events, "second")
    answer = get_events(principal(realm.member), queue_id, last, True)
    assert [m["message"]["content"] for m in messages(answer["events"])] == ["second"]
    assert len(reads) == 2


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
