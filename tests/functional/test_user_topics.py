"""Topic visibility: POST /user_topics, the deprecated muted-topics endpoint, events, state."""
from __future__ import annotations

import threading

from chalicelib.actions.user_topics import do_set_visibility_policy
from chalicelib.http.auth import Principal
from tests.functional.edit_helpers import channel

TYPES = ["user_topic", "muted_topics"]


def mute(account, **params):
    return account.patch("/users/me/subscriptions/muted_topics", params)


def test_mute_and_unmute_with_events_and_state(realm, register_queue, fetch_events,
                                               drain_events):
    stream_id = channel(realm.owner, "talk", [realm.member])
    queue_id = register_queue(realm.member, event_types=TYPES)["queue_id"]
    # WHEN the member mutes a topic that has no messages, by channel name
    assert mute(realm.member, stream="talk", topic="lunch", op="add").ok
    drain_events()
    events = fetch_events(realm.member, queue_id)
    user_topic = next(e for e in events if e["type"] == "user_topic")
    muted = next(e for e in events if e["type"] == "muted_topics")
    assert (user_topic["stream_id"], user_topic["topic_name"],
            user_topic["visibility_policy"]) == (stream_id, "lunch", 1)
    assert muted["muted_topics"] == [["talk", "lunch", user_topic["last_updated"]]]
    # THEN registration shows it in both shapes
    state = register_queue(realm.member, event_types=TYPES)
    assert state["user_topics"] == [{"stream_id": stream_id, "topic_name": "lunch",
                                     "last_updated": user_topic["last_updated"],
                                     "visibility_policy": 1}]
    assert state["muted_topics"] == [["talk", "lunch", user_topic["last_updated"]]]
    # WHEN muted again (idempotent, no event), then unmuted by channel id
    last = events[-1]["id"]
    assert mute(realm.member, stream_id=stream_id, topic="lunch", op="add").ok
    drain_events()
    assert fetch_events(realm.member, queue_id, last) == []
    assert mute(realm.member, stream_id=stream_id, topic="LUNCH", op="remove").ok
    assert mute(realm.member, stream_id=stream_id, topic="lunch", op="remove").ok
    drain_events()
    [removed, now_muted] = sorted(fetch_events(realm.member, queue_id, last),
                                  key=lambda e: e["type"] != "user_topic")
    assert removed["visibility_policy"] == 0 and now_muted["muted_topics"] == []
    assert register_queue(realm.member, event_types=TYPES)["user_topics"] == []


def test_user_topics_endpoint_policies(realm, register_queue):
    stream_id = channel(realm.owner, "talk", [realm.member])
    for policy in (3, 2, 1):
        assert realm.member.post("/user_topics", {"stream_id": stream_id, "topic": "t",
                                                  "visibility_policy": policy}).ok
        [item] = register_queue(realm.member, event_types=["user_topic"])["user_topics"]
        assert item["visibility_policy"] == policy
    # the empty-topic display name is the empty topic
    assert realm.member.post("/user_topics", {"stream_id": stream_id, "topic": "general chat",
                                              "visibility_policy": 1}).ok
    names = {i["topic_name"] for i in register_queue(
        realm.member, event_types=["user_topic"])["user_topics"]}
    assert names == {"t", ""}
    bad = realm.member.post("/user_topics", {"stream_id": stream_id, "topic": "t",
                                             "visibility_policy": 7})
    assert bad.status == 400 and bad.json["msg"] == "Invalid visibility_policy"


def test_errors(realm):
    stream_id = channel(realm.owner, "talk", [realm.member])
    both = mute(realm.member, stream="talk", stream_id=stream_id, topic="t", op="add")
    assert both.status == 400 and "one" in both.json["msg"]
    neither = mute(realm.member, topic="t", op="add")
    assert neither.status == 400 and "one" in neither.json["msg"]
    assert mute(realm.member, stream="nope", topic="t", op="add").status == 400
    assert mute(realm.member, stream_id=99999, topic="t", op="add").json["msg"] == \
        "Invalid channel ID"
    assert "Topic too long" in mute(realm.member, stream_id=stream_id, topic="x" * 61,
                                    op="add").json["msg"]
    assert mute(realm.member, stream_id=stream_id, topic="t", op="toggle").status == 400
    assert mute(realm.member, stream_id=stream_id, op="add").status == 400


def test_concurrent_changes_end_in_one_consistent_policy(realm, register_queue):
    stream_id = channel(realm.owner, "talk", [realm.member])
    caller = Principal(realm.realm_id, realm.member.user_id, realm.member.email, 400, False)
    start = threading.Barrier(4)

    def change(policy: int) -> None:
        start.wait()
        do_set_visibility_policy(caller, stream_id, "t", policy)

    threads = [threading.Thread(target=change, args=(p,)) for p in (1, 2, 3, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    [item] = register_queue(realm.member, event_types=["user_topic"])["user_topics"]
    assert item["visibility_policy"] in (1, 2, 3)
