"""GET /users/me/{stream_id}/topics: recency order, max_id, empty topic, protected history."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send


def topics(account, stream_id: int, **params):
    response = account.get(f"/users/me/{stream_id}/topics", params)
    assert response.ok, response.json
    return [(t["name"], t["max_id"]) for t in response.json["topics"]]


def test_topics_most_recent_first_and_kept_in_step_with_moves(realm):
    stream_id = channel(realm.owner, "talk", [realm.owner, realm.member])
    a1 = send(realm.member, "talk", "alpha")
    b1 = send(realm.member, "talk", "beta")
    a2 = send(realm.member, "talk", "Alpha")   # topics are case-insensitive
    assert topics(realm.member, stream_id) == [("Alpha", a2), ("beta", b1)]
    # a move updates both the old and the new topic
    assert realm.member.patch(f"/messages/{a2}", {
        "topic": "gamma", "send_notification_to_new_thread": False}).ok
    assert topics(realm.member, stream_id) == [("gamma", a2), ("beta", b1), ("alpha", a1)]
    assert realm.member.patch(f"/messages/{a1}", {
        "topic": "gamma", "send_notification_to_new_thread": False}).ok
    assert topics(realm.member, stream_id) == [("gamma", a2), ("beta", b1)]


def test_empty_topic_name_and_errors(realm):
    stream_id = channel(realm.owner, "talk", [realm.owner, realm.member])
    empty = send(realm.member, "talk", "")
    assert topics(realm.member, stream_id) == [("general chat", empty)]
    assert topics(realm.member, stream_id, allow_empty_topic_name=True) == [("", empty)]
    secret = channel(realm.owner, "secret", [realm.owner], invite_only=True)
    # nonexistent, private without a subscription, public for an unsubscribed guest
    for account, bad in ((realm.member, 99999), (realm.member, secret),
                         (realm.guest, stream_id)):
        response = account.get(f"/users/me/{bad}/topics")
        assert response.status == 400 and response.json["msg"] == "No channel you can see has that ID."
        assert response.json["code"] == "BAD_REQUEST"
    # a public channel needs no subscription
    assert topics(realm.moderator, stream_id) == [("general chat", empty)]


def test_protected_history_shows_only_topics_since_subscribing(realm):
    stream_id = channel(realm.owner, "secret", [realm.owner], invite_only=True,
                        history_public_to_subscribers=False)
    send(realm.owner, "secret", "before")
    mixed_old = send(realm.owner, "secret", "mixed")
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "secret"}], "principals": [realm.member.user_id]}).ok
    after = send(realm.owner, "secret", "after")
    mixed_new = send(realm.owner, "secret", "mixed")
    assert topics(realm.member, stream_id) == [("mixed", mixed_new), ("after", after)]
    assert len(topics(realm.owner, stream_id)) == 3 and mixed_old < mixed_new


def test_protected_history_shows_no_topics_to_a_non_subscriber(realm):
    # GIVEN a private channel with protected history, and a member who may add
    # subscribers to it (content access) without being subscribed
    stream_id = channel(realm.owner, "vault", [realm.owner], invite_only=True,
                        history_public_to_subscribers=False)
    send(realm.owner, "vault", "hidden plans")
    assert realm.owner.patch(f"/streams/{stream_id}", {"can_add_subscribers_group": {
        "direct_members": [realm.member.user_id], "direct_subgroups": []}}).ok
    # THEN the member sees the channel's topic list empty, as they can read no message
    assert topics(realm.member, stream_id) == []
    # AND once subscribed, only topics of later messages
    assert realm.member.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "vault"}]}).ok
    later = send(realm.owner, "vault", "new plans")
    assert topics(realm.member, stream_id) == [("new plans", later)]


def test_a_message_the_index_does_not_show_yet_keeps_its_topic_listed(realm, monkeypatch):
    from chalicelib.models.messages import Message

    stream_id = channel(realm.owner, "talk", [realm.owner, realm.member])
    moved = send(realm.member, "talk", "alpha")
    # GIVEN a message just sent to the topic: recorded in the topic list, but not yet in
    # the (eventually consistent) topic index when the topic is next recomputed
    fresh = send(realm.owner, "talk", "alpha")
    index_query = Message.by_topic.query
    monkeypatch.setattr(Message.by_topic, "query", lambda *args, **kwargs: (
        m for m in index_query(*args, **kwargs) if m.message_id != fresh))
    # WHEN the other message moves away
    assert realm.member.patch(f"/messages/{moved}", {
        "topic": "beta", "send_notification_to_new_thread": False}).ok
    monkeypatch.undo()
    # THEN the topic keeps its entry for the message that stayed
    assert topics(realm.member, stream_id) == [("alpha", fresh), ("beta", moved)]
