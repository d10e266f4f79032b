"""Topic visibility: POST /user_topics, the deprecated muted-topics endpoint, events, state."""
from __future__ import annotations

import itertools
import threading

import pytest

from chalicelib import config
from chalicelib.actions.channels import user_topics as user_topics_actions
from chalicelib.actions.channels.user_topics import do_set_visibility_policy
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Subscription, user_key
from tests.functional.edit_helpers import channel


def mute(account, **params):
    return account.patch("/users/me/subscriptions/muted_topics", params)


def set_policy(account, stream_id, topic, policy):
    return account.post("/user_topics", {"stream_id": stream_id, "topic": topic,
                                         "visibility_policy": policy})


def policies(register_queue, account, **params):
    """{topic_name: visibility_policy} from the registration state."""
    state = register_queue(account, event_types=["user_topic"], **params)
    return {i["topic_name"]: i["visibility_policy"] for i in state["user_topics"]}


def muted_state(register_queue, account):
    return register_queue(account, event_types=["muted_topics"])["muted_topics"]


def principal(account) -> Principal:
    return Principal(account.realm_id, account.user_id, account.email, account.role, False)


def test_mute_and_unmute_with_events_and_state(realm, register_queue, fetch_events,
                                               drain_events):
    # GIVEN one queue for the new event type, one for the legacy one, and another user's
    stream_id = channel(realm.owner, "talk", [realm.member, realm.admin])
    new_queue = register_queue(realm.member, event_types=["user_topic"])["queue_id"]
    legacy_queue = register_queue(realm.member, event_types=["muted_topics"])["queue_id"]
    others = register_queue(realm.admin, event_types=["user_topic", "muted_topics"])["queue_id"]
    # WHEN the member mutes a topic that has no messages, by channel name
    assert mute(realm.member, stream="talk", topic="Lunch", op="add").ok
    drain_events()
    # THEN each queue gets its own event type; other users get nothing
    [user_topic] = fetch_events(realm.member, new_queue)
    assert user_topic["type"] == "user_topic"
    assert {k: user_topic[k] for k in ("stream_id", "topic_name", "visibility_policy")} == {
        "stream_id": stream_id, "topic_name": "Lunch", "visibility_policy": 1}
    assert set(user_topic) == {"id", "type", "stream_id", "topic_name", "last_updated",
                               "visibility_policy"}
    muted_at = user_topic["last_updated"]
    assert isinstance(muted_at, int) and muted_at > 1_600_000_000
    [legacy] = fetch_events(realm.member, legacy_queue)
    assert legacy["type"] == "muted_topics"
    assert legacy["muted_topics"] == [["talk", "Lunch", muted_at]]
    assert fetch_events(realm.admin, others) == []
    # AND registration shows it in both shapes
    assert register_queue(realm.member, event_types=["user_topic"])["user_topics"] == [
        {"stream_id": stream_id, "topic_name": "Lunch", "last_updated": muted_at,
         "visibility_policy": 1}]
    assert muted_state(register_queue, realm.member) == [["talk", "Lunch", muted_at]]
    # WHEN muted again, by channel id and in another case: a success with no event
    new_last, legacy_last = user_topic["id"], legacy["id"]
    assert mute(realm.member, stream_id=stream_id, topic="lunch", op="add").ok
    drain_events()
    assert fetch_events(realm.member, new_queue, new_last) == []
    assert fetch_events(realm.member, legacy_queue, legacy_last) == []
    # WHEN unmuted (case-insensitively), then unmuted again (also a quiet success)
    assert mute(realm.member, stream_id=stream_id, topic="LUNCH", op="remove").ok
    assert mute(realm.member, stream="talk", topic="lunch", op="remove").ok
    drain_events()
    [removed] = fetch_events(realm.member, new_queue, new_last)
    assert (removed["stream_id"], removed["topic_name"].lower(),
            removed["visibility_policy"]) == (stream_id, "lunch", 0)
    [legacy_removed] = fetch_events(realm.member, legacy_queue, legacy_last)
    assert legacy_removed["muted_topics"] == []
    assert policies(register_queue, realm.member) == {}
    assert muted_state(register_queue, realm.member) == []


def test_legacy_event_lists_every_muted_topic(realm, register_queue, fetch_events,
                                              drain_events):
    talk = channel(realm.owner, "talk", [realm.member])
    channel(realm.owner, "news", [realm.member])
    queue_id = register_queue(realm.member, event_types=["muted_topics"])["queue_id"]
    # WHEN two topics are muted and a third followed
    assert mute(realm.member, stream="news", topic="b", op="add").ok
    assert mute(realm.member, stream="talk", topic="a", op="add").ok
    assert set_policy(realm.member, talk, "c", 3).ok
    drain_events()
    # THEN each legacy event carries the full list of muted topics (followed ones excluded)
    events = fetch_events(realm.member, queue_id)
    assert [sorted(t[:2] for t in e["muted_topics"]) for e in events] == [
        [["news", "b"]], [["news", "b"], ["talk", "a"]], [["news", "b"], ["talk", "a"]]]
    assert sorted(t[:2] for t in muted_state(register_queue, realm.member)) == [
        ["news", "b"], ["talk", "a"]]


def test_user_topics_endpoint_policies(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.owner, "talk", [realm.member])
    queue_id = register_queue(realm.member, event_types=["user_topic"])["queue_id"]
    # WHEN the policy goes through followed, unmuted, muted, the same again, and none
    for policy in (3, 2, 1, 1, 0, 0):
        response = set_policy(realm.member, stream_id, "t", policy)
        assert response.ok, response.json
        expected = {} if policy == 0 else {"t": policy}
        assert policies(register_queue, realm.member) == expected
    drain_events()
    # THEN one event per actual change
    assert [(e["topic_name"], e["visibility_policy"])
            for e in fetch_events(realm.member, queue_id)] == [
        ("t", 3), ("t", 2), ("t", 1), ("t", 0)]


@pytest.mark.parametrize("policy", [4, -1, "muted", "1.5"])
def test_invalid_visibility_policy(realm, policy):
    stream_id = channel(realm.owner, "talk", [realm.member])
    response = set_policy(realm.member, stream_id, "t", policy)
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST"
    assert "visibility_policy" in response.json["msg"]


def test_register_state_shapes(realm, register_queue):
    stream_id = channel(realm.owner, "talk", [realm.member])
    assert set_policy(realm.member, stream_id, "t", 1).ok
    # naming user_topic suppresses the legacy muted_topics, as in the reference
    both = register_queue(realm.member, event_types=["user_topic", "muted_topics"])
    assert [i["topic_name"] for i in both["user_topics"]] == ["t"]
    assert "muted_topics" not in both
    # registering for every event type returns both
    everything = register_queue(realm.member)
    assert [i["topic_name"] for i in everything["user_topics"]] == ["t"]
    assert [m[:2] for m in everything["muted_topics"]] == [["talk", "t"]]
    # neither is present when not asked for
    other = register_queue(realm.member, event_types=["alert_words"])
    assert "user_topics" not in other and "muted_topics" not in other
    # a user with nothing set gets empty lists
    assert register_queue(realm.admin)["user_topics"] == []
    assert register_queue(realm.admin)["muted_topics"] == []


def test_empty_topic_display_name(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.owner, "talk", [realm.member])
    # GIVEN an organization whose empty topic is displayed as "misc"
    assert realm.admin.patch("/realm", {"empty_topic_display_name": "misc"}).ok
    queue_id = register_queue(realm.member, event_types=["user_topic"],
                              client_capabilities={"empty_topic_name": True})["queue_id"]
    # WHEN the member mutes "misc": that is the empty topic
    assert set_policy(realm.member, stream_id, "misc", 1).ok
    drain_events()
    [event] = fetch_events(realm.member, queue_id)
    assert event["topic_name"] == ""
    # THEN clients that know the empty topic see "", others see the display name
    assert policies(register_queue, realm.member,
                    client_capabilities={"empty_topic_name": True}) == {"": 1}
    assert policies(register_queue, realm.member) == {"misc": 1}
    assert [m[:2] for m in muted_state(register_queue, realm.member)] == [["talk", "misc"]]
    # AND "(no topic)" and "" name the same topic, through either endpoint
    assert mute(realm.member, stream_id=stream_id, topic="(no topic)", op="remove").ok
    assert policies(register_queue, realm.member) == {}
    assert mute(realm.member, stream_id=stream_id, topic="", op="add").ok
    assert policies(register_queue, realm.member) == {"misc": 1}
    # AND a topic that only looks like the default display name is an ordinary topic
    assert set_policy(realm.member, stream_id, "general chat", 3).ok
    assert policies(register_queue, realm.member) == {"misc": 1, "general chat": 3}


def test_errors(realm):
    stream_id = channel(realm.owner, "talk", [realm.member])
    both = mute(realm.member, stream="talk", stream_id=stream_id, topic="t", op="add")
    assert both.status == 400 and both.json["msg"] == "Send either 'stream' or 'stream_id', not both."
    neither = mute(realm.member, topic="t", op="add")
    assert neither.status == 400 and neither.json["msg"] == both.json["msg"]
    unknown_name = mute(realm.member, stream="nope", topic="t", op="add")
    assert unknown_name.status == 400
    # As the reference's access by name: the name is invalid (not STREAM_DOES_NOT_EXIST)
    assert (unknown_name.json["code"], unknown_name.json["msg"]) == (
        "BAD_REQUEST", "No channel named 'nope' exists, or you cannot see it")
    assert mute(realm.member, stream="nope", topic="t", op="remove").status == 400
    # a name longer than any channel's is not looked up (it would exceed a key's size)
    huge = mute(realm.member, stream="n" * 5000, topic="t", op="add")
    assert huge.status == 400 and huge.json["msg"].startswith("No channel named")
    for op in ("add", "remove"):
        unknown_id = mute(realm.member, stream_id=99999, topic="t", op=op)
        assert unknown_id.status == 400 and unknown_id.json["msg"] == "No channel you can see has that ID."
    assert set_policy(realm.member, 99999, "t", 1).json["msg"] == "No channel you can see has that ID."
    assert set_policy(realm.member, 99999, "t", 0).json["msg"] == "No channel you can see has that ID."
    limit = config.MAX_TOPIC_LENGTH
    too_long = mute(realm.member, stream_id=stream_id, topic="x" * (limit + 1), op="add")
    assert too_long.status == 400 and too_long.json["msg"].startswith("Topic too long")
    assert set_policy(realm.member, stream_id, "x" * (limit + 1), 1).status == 400
    assert mute(realm.member, stream_id=stream_id, topic="x" * limit, op="add").ok
    assert mute(realm.member, stream_id=stream_id, topic="t", op="toggle").status == 400
    assert mute(realm.member, stream_id=stream_id, op="add").status == 400
    assert mute(realm.member, stream_id=stream_id, topic="t").status == 400
    assert realm.member.post("/user_topics", {"stream_id": stream_id, "topic": "t"}).status == 400
    assert realm.member.post("/user_topics", {"topic": "t", "visibility_policy": 1}).status == 400


def test_channel_access(realm, register_queue):
    # GIVEN a private channel the member is in, and one they are not in
    mine = channel(realm.owner, "ours", [realm.member], invite_only=True)
    channel(realm.owner, "secret", [], invite_only=True)
    # THEN a non-subscriber can't mute in a private channel, nor can a guest in a public one
    assert mute(realm.member, stream="secret", topic="t", op="add").status == 400
    public = channel(realm.owner, "public", [])
    assert set_policy(realm.guest, public, "t", 1).json["msg"] == "No channel you can see has that ID."
    # WHEN the member mutes in their private channel, then loses access to it
    assert set_policy(realm.member, mine, "t", 1).ok
    Subscription.get(user_key(realm.realm_id, realm.member.user_id), mine).update(
        actions=[Subscription.active.set(False)])
    assert set_policy(realm.member, mine, "u", 1).json["msg"] == "No channel you can see has that ID."
    # THEN they can still clear what they had set there
    assert mute(realm.member, stream="ours", topic="t", op="remove").ok
    assert policies(register_queue, realm.member) == {}


def test_a_concurrent_change_is_read_again(realm, register_queue, fetch_events, drain_events,
                                           monkeypatch):
    stream_id = channel(realm.owner, "talk", [realm.member])
    queue_id = register_queue(realm.member, event_types=["user_topic"])["queue_id"]
    caller = principal(realm.member)
    real_user_topics = user_topics_actions.user_topics
    raced = []

    def racing_user_topics(realm_id: int, user_id: int):
        # Between our read and our write, another request mutes the same topic.
        if not raced:
            raced.append(True)
            do_set_visibility_policy(caller, stream_id, "t", 1)
        return real_user_topics(realm_id, user_id)

    monkeypatch.setattr(user_topics_actions, "user_topics", racing_user_topics)
    # WHEN this request also mutes it: its write is refused, and on reading again it is a no-op
    do_set_visibility_policy(caller, stream_id, "t", 1)
    drain_events()
    # THEN exactly one change happened and was announced
    assert raced
    assert [e["visibility_policy"] for e in fetch_events(realm.member, queue_id)] == [1]


def test_concurrent_changes_end_in_one_consistent_policy(realm, register_queue, fetch_events,
                                                         drain_events):
    stream_id = channel(realm.owner, "talk", [realm.member])
    queue_id = register_queue(realm.member, event_types=["user_topic"])["queue_id"]
    caller = principal(realm.member)
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def change(policy: int) -> None:
        start.wait()
        try:
            do_set_visibility_policy(caller, stream_id, "t", policy)
        except BaseException as error:   # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=change, args=(p,)) for p in (1, 2, 3, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    drain_events()
    # every announced change differs from the one before it: no write was lost
    announced = [e["visibility_policy"] for e in fetch_events(realm.member, queue_id)]
    assert announced and all(a != b for a, b in itertools.pairwise(announced))
    assert policies(register_queue, realm.member) == {"t": announced[-1]}


def test_the_empty_topic_can_be_muted_where_topics_are_required(realm):
    # Muting names an existing topic; the policy is about sending new messages.
    stream_id = channel(realm.owner, "talk", [realm.member])
    assert realm.owner.patch("/realm", {"topics_policy": "disable_empty_topic"}).ok
    assert mute(realm.member, stream_id=stream_id, topic="", op="add").ok
    assert set_policy(realm.member, stream_id, "general chat", 3).ok
