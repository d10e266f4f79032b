"""Bulk read state: mark all/channel/topic read, flags by narrow, unread-aware narrows."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import (
    dm,
    flag_events,
    flags_of,
    narrow_ids,
    set_flags,
    unread_ids,
)


def test_mark_all_stream_and_topic_as_read(realm, register_queue, fetch_events,
                                          drain_events):
    first_id = channel(realm.owner, "one", [realm.owner, realm.member])
    channel(realm.owner, "two", [realm.owner, realm.member])
    a1, a2 = send(realm.owner, "one", "a"), send(realm.owner, "one", "a")
    b = send(realm.owner, "one", "b")
    other = send(realm.owner, "two", "x")
    direct = dm(realm.owner, [realm.member])
    drain_events()
    queue_id = register_queue(realm.member, event_types=["update_message_flags"])["queue_id"]
    # WHEN the member marks topic "a" read THEN only it is read
    assert realm.member.post("/mark_topic_as_read", {"stream_id": first_id,
                                                     "topic_name": "A"}).ok
    assert unread_ids(realm.member) == sorted([b, other, direct])
    # WHEN the member marks channel "one" read THEN its other topic is read too
    assert realm.member.post("/mark_stream_as_read", {"stream_id": first_id}).ok
    assert unread_ids(realm.member) == sorted([other, direct])
    # WHEN the member marks everything read THEN nothing is unread, and it says complete
    response = realm.member.post("/mark_all_as_read")
    assert response.ok and response.json["complete"] is True
    assert unread_ids(realm.member) == []
    drain_events()
    events = flag_events(fetch_events(realm.member, queue_id))
    # mark_all_as_read's event says all, listing no messages (as the reference)
    assert [(sorted(e["messages"]), e["all"]) for e in events] == [
        ([a1, a2], False), ([b], False), ([], True)]
    assert all(e["op"] == "add" and e["flag"] == "read" for e in events)


def test_mark_topic_and_stream_errors(realm, drain_events):
    secret = channel(realm.owner, "hush", [realm.owner], invite_only=True)
    open_id = channel(realm.owner, "open", [realm.owner, realm.member])
    send(realm.owner, "open", "exists")
    for path, params in (("/mark_stream_as_read", {"stream_id": secret}),
                         ("/mark_topic_as_read", {"stream_id": secret, "topic_name": "x"}),
                         ("/mark_stream_as_read", {"stream_id": 987654})):
        response = realm.member.post(path, params)
        assert response.status == 400 and response.json["msg"] == "No channel you can see has that ID."
    missing = realm.member.post("/mark_topic_as_read", {"stream_id": open_id,
                                                        "topic_name": "nope"})
    assert missing.status == 400 and missing.json["msg"] == "The topic 'nope' has no messages here"


def test_mark_all_as_read_in_rounds_answers_complete_false(realm, drain_events, monkeypatch):
    import chalicelib.actions.read_state.mark_read as mark_read

    channel(realm.owner, "rounds", [realm.owner, realm.member])
    ids = [send(realm.owner, "rounds", "t", f"m{n}") for n in range(5)]
    drain_events()
    monkeypatch.setattr(mark_read, "MARK_ALL_PAGE", 2)
    monkeypatch.setenv("MARK_ALL_AS_READ_SECONDS", "0")
    answers = []
    while not answers or not answers[-1]:
        response = realm.member.post("/mark_all_as_read")
        assert response.ok
        answers.append(response.json["complete"])
    # newest first, two at a time: three rounds, the last complete
    assert answers == [False, False, True]
    assert unread_ids(realm.member) == []
    assert all("read" in flags_of(realm.member, i) for i in ids)


def test_a_round_of_mark_all_as_read_costs_the_same_however_many_are_left(
        realm, drain_events, monkeypatch):
    """Out of time after a round, the answer checks whether anything is left with one
    Query of one item, not by counting what is left (a request per marker)."""
    import chalicelib.actions.read_state.mark_read as mark_read
    from tests.functional.aws_hooks import counting

    channel(realm.owner, "many", [realm.owner, realm.member])
    for n in range(12):
        send(realm.owner, "many", "t", f"m{n}")
    drain_events()
    monkeypatch.setattr(mark_read, "MARK_ALL_PAGE", 2)
    monkeypatch.setenv("MARK_ALL_AS_READ_SECONDS", "0")
    queries = []
    while True:
        with counting() as calls:
            response = realm.member.post("/mark_all_as_read")
        queries.append(calls.calls["dynamodb.Query"])
        if response.json["complete"]:
            break
    # Each round: its page, and one item to tell whether more are left (plus the
    # request's own reads of messages in flight), whether 10 or 2 markers are left.
    assert len(queries) == 6 and len(set(queries)) == 1, queries
    assert unread_ids(realm.member) == []


def test_personal_narrows(realm, drain_events):
    channel(realm.owner, "mix", [realm.owner, realm.member])
    plain = send(realm.owner, "mix", "t", "plain")
    mention = send(realm.owner, "mix", "t", "hey @**Max Member**")
    read = send(realm.owner, "mix", "u", "read one")
    direct = dm(realm.owner, [realm.member])
    drain_events()
    assert set_flags(realm.member, [read], "add", "read").ok
    assert set_flags(realm.member, [plain], "add", "starred").ok
    assert narrow_ids(realm.member, [{"operator": "is", "operand": "unread"}]) == [
        plain, mention, direct]
    assert narrow_ids(realm.member, [{"operator": "is", "operand": "unread"},
                                     {"operator": "channel", "operand": "mix"},
                                     {"operator": "topic", "operand": "t"}]) == [plain, mention]
    assert narrow_ids(realm.member, [{"operator": "is", "operand": "starred"}]) == [plain]
    assert narrow_ids(realm.member, [{"operator": "is", "operand": "mentioned"}]) == [mention]
    assert narrow_ids(realm.member, [{"operator": "is", "operand": "dm"}]) == [direct]
    assert narrow_ids(realm.member, [["is", "private"], ["is", "unread"]]) == [direct]
    # AND the first_unread anchor starts at the oldest unread message of the narrow
    around = realm.member.get("/messages", {"anchor": "first_unread", "num_before": 0,
                                            "num_after": 0, "narrow": [
                                                {"operator": "channel", "operand": "mix"},
                                                {"operator": "topic", "operand": "t"}]})
    assert around.json["anchor"] == plain and around.json["found_anchor"] is True


def test_flags_for_a_narrow(realm, drain_events):
    stream_id = channel(realm.owner, "range", [realm.owner, realm.member])
    ids = [send(realm.owner, "range", "t", f"m{n}") for n in range(5)]
    elsewhere = send(realm.owner, "range", "other")
    drain_events()
    assert set_flags(realm.member, [ids[1]], "add", "read").ok
    narrow = [{"operator": "channel", "operand": stream_id}, {"operator": "topic",
                                                            "operand": "t"}]
    response = realm.member.post("/messages/flags/narrow", {
        "anchor": ids[1], "include_anchor": True, "num_before": 1, "num_after": 2,
        "narrow": narrow, "op": "add", "flag": "read"})
    assert response.ok, response.json
    assert {k: v for k, v in response.json.items() if k not in ("result", "msg")} == {
        "processed_count": 4, "updated_count": 3, "first_processed_id": ids[0],
        "last_processed_id": ids[3], "found_oldest": False, "found_newest": False}
    assert unread_ids(realm.member) == [ids[4], elsewhere]
    # AND an empty range says so
    empty = realm.member.post("/messages/flags/narrow", {
        "anchor": "newest", "num_before": 10, "num_after": 0,
        "narrow": [{"operator": "is", "operand": "starred"}], "op": "add", "flag": "read"})
    assert empty.ok and empty.json["processed_count"] == 0
    assert empty.json["first_processed_id"] is None and empty.json["last_processed_id"] is None
    # AND marking unread by narrow reports the channels it skipped (none here)
    unread = realm.member.post("/messages/flags/narrow", {
        "anchor": "oldest", "num_before": 0, "num_after": 10, "narrow": narrow,
        "op": "remove", "flag": "read"})
    assert unread.ok and unread.json["updated_count"] == 4
    assert unread.json["ignored_because_not_subscribed_channels"] == []
    bad = realm.member.post("/messages/flags/narrow", {
        "anchor": "sideways", "num_before": 0, "num_after": 1, "narrow": [], "op": "add",
        "flag": "read"})
    assert bad.status == 400 and bad.json["msg"] == "The anchor is not a message ID or a known position"


def test_unsubscribe_others_needs_permission(realm, register_queue, fetch_events,
                                            drain_events):
    channel(realm.owner, "room", [realm.owner, realm.member, realm.admin])
    # a member cannot remove others; an administrator can
    refused = realm.member.delete("/users/me/subscriptions", {
        "subscriptions": ["room"], "principals": [realm.admin.user_id]})
    assert refused.status == 400 and refused.json["msg"] == "You are not allowed to do this."
    queue_id = register_queue(realm.member, event_types=["subscription"])["queue_id"]
    removed = realm.admin.delete("/users/me/subscriptions", {
        "subscriptions": ["room"], "principals": [realm.member.user_id]})
    assert removed.ok and removed.json == {"result": "success", "msg": "",
                                           "removed": ["room"], "not_removed": []}
    again = realm.admin.delete("/users/me/subscriptions", {
        "subscriptions": ["room"], "principals": [realm.member.user_id]})
    assert again.json["removed"] == [] and again.json["not_removed"] == ["room"]
    missing = realm.member.delete("/users/me/subscriptions", {"subscriptions": ["nowhere"]})
    assert missing.status == 400 and missing.json["code"] == "STREAM_DOES_NOT_EXIST"
    drain_events()
    [remove] = [e for e in fetch_events(realm.member, queue_id) if e["op"] == "remove"]
    assert remove["subscriptions"][0]["name"] == "room"
    subscribed = {s["name"] for s in realm.member.get("/users/me/subscriptions").json[
        "subscriptions"]}
    assert "room" not in subscribed


def test_a_topic_narrow_longer_than_any_topic_reads_no_index(realm, monkeypatch):
    from chalicelib.models.messages import Message

    stream_id = channel(realm.owner, "long", [realm.owner, realm.member])
    send(realm.owner, "long", "t")

    def refuse(*args, **kwargs):   # DynamoDB refuses keys over 2 KB
        raise AssertionError("the topic index was queried")
    monkeypatch.setattr(Message.by_topic, "query", refuse)
    narrow = [{"operator": "channel", "operand": stream_id},
              {"operator": "topic", "operand": "t" * 3000}]
    response = realm.member.post("/messages/flags/narrow", {
        "anchor": "oldest", "num_before": 0, "num_after": 10, "narrow": narrow,
        "op": "add", "flag": "read"})
    assert response.ok, response.json
    assert response.json["processed_count"] == 0
    fetched = realm.member.get("/messages", {"anchor": "newest", "num_before": 10,
                                             "num_after": 0, "narrow": narrow})
    assert fetched.ok and fetched.json["messages"] == []
