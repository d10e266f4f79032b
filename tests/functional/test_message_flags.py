"""POST /messages/flags: read, starred and collapsed by message id, their rules and events."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import dm, flag_events, flags_of, set_flags


def test_recipients_start_unread_and_the_sender_has_read_it(realm, drain_events):
    # GIVEN a channel of owner and member
    channel(realm.owner, "flags", [realm.owner, realm.member])
    # WHEN the member writes to it and the fan-out runs
    message = send(realm.member, "flags", "t", "hello")
    drain_events()
    # THEN the owner has it unread and the sender has read it
    assert "read" not in flags_of(realm.owner, message)
    assert "read" in flags_of(realm.member, message)


def test_read_by_sender_false_leaves_it_unread_for_the_sender(realm, drain_events):
    channel(realm.owner, "self-unread", [realm.owner, realm.member])
    sent = realm.member.post("/messages", {"type": "stream", "to": "self-unread", "topic": "t",
                                           "content": "later", "read_by_sender": False})
    assert sent.ok, sent.json
    drain_events()
    assert "read" not in flags_of(realm.member, sent.json["id"])


def test_marking_read_changes_flags_and_tells_every_queue(realm, register_queue,
                                                          fetch_events, drain_events):
    # GIVEN an unread message and two of the owner's queues
    channel(realm.owner, "news", [realm.owner, realm.member])
    message = send(realm.member, "news", "t")
    drain_events()
    queues = [register_queue(realm.owner, event_types=["update_message_flags"])["queue_id"]
              for _ in range(2)]
    # WHEN the owner marks it read
    response = set_flags(realm.owner, [message], "add", "read")
    # THEN the answer lists the messages, the flag is set, and both queues are told
    assert response.ok, response.json
    assert response.json["messages"] == [message]
    assert "read" in flags_of(realm.owner, message)
    drain_events()
    for queue_id in queues:
        [event] = flag_events(fetch_events(realm.owner, queue_id))
        assert event == {"type": "update_message_flags", "op": "add", "operation": "add",
                         "flag": "read", "messages": [message], "all": False,
                         "id": event["id"]}
    # AND marking it read again changes nothing and tells nobody
    assert set_flags(realm.owner, [message], "add", "read").ok
    drain_events()
    assert all(not flag_events(fetch_events(realm.owner, q, 0)) for q in queues)


def test_marking_read_ignores_messages_the_caller_cannot_access(realm, drain_events):
    # GIVEN a private channel the guest is not in, with a message unread by the admin
    channel(realm.owner, "secret", [realm.owner, realm.admin], invite_only=True)
    message = send(realm.owner, "secret", "t")
    drain_events()
    # WHEN the guest marks it (and a made-up id) read
    response = set_flags(realm.guest, [message, 999999], "add", "read")
    # THEN that is no error and nothing changes for anyone
    assert response.ok, response.json
    assert "read" not in flags_of(realm.admin, message)


def test_starring_needs_access_and_unstarring_does_not(realm, register_queue, fetch_events,
                                                       drain_events):
    channel(realm.owner, "secret-2", [realm.owner], invite_only=True)
    hidden = send(realm.owner, "secret-2", "t")
    channel(realm.owner, "open", [realm.owner, realm.member])
    visible = send(realm.owner, "open", "t")
    drain_events()
    queue_id = register_queue(realm.member, event_types=["update_message_flags"])["queue_id"]
    # WHEN the member stars a message they cannot read THEN it is refused, as a missing one
    for ids in ([hidden], [visible, hidden], [424242]):
        refused = set_flags(realm.member, ids, "add", "starred")
        assert refused.status == 400 and refused.json["msg"] == "Message not found, or you cannot see it."
    assert "starred" not in flags_of(realm.member, visible)   # nothing half-done
    # WHEN the member stars and unstars a readable message THEN flags and events follow
    assert set_flags(realm.member, [visible], "add", "starred").ok
    assert "starred" in flags_of(realm.member, visible)
    assert set_flags(realm.member, [visible, hidden], "remove", "starred").ok
    assert "starred" not in flags_of(realm.member, visible)
    drain_events()
    added, removed = flag_events(fetch_events(realm.member, queue_id))
    assert (added["op"], added["flag"], added["messages"]) == ("add", "starred", [visible])
    assert (removed["op"], removed["messages"]) == ("remove", [visible])
    assert "message_details" not in removed


def test_collapsed_is_a_personal_flag(realm, drain_events):
    channel(realm.owner, "fold", [realm.owner, realm.member])
    message = send(realm.owner, "fold", "t")
    drain_events()
    assert set_flags(realm.member, [message], "add", "collapsed").ok
    assert "collapsed" in flags_of(realm.member, message)
    assert "collapsed" not in flags_of(realm.owner, message)


def test_flags_the_server_sets_cannot_be_changed(realm):
    for flag, message in (("mentioned", "The 'mentioned' flag cannot be changed directly"),
                          ("has_alert_word", "The 'has_alert_word' flag cannot be changed directly"),
                          ("historical", "The 'historical' flag cannot be changed directly"),
                          ("bogus", "'bogus' is not a message flag")):
        response = set_flags(realm.member, [1], "add", flag)
        assert response.status == 400 and response.json["msg"] == message
    bad_op = realm.member.post("/messages/flags", {"messages": [1], "op": "toggle",
                                                   "flag": "read"})
    assert bad_op.status == 400
    too_many = set_flags(realm.member, list(range(1, 5002)), "add", "read")
    assert too_many.status == 400


def test_marking_unread_details_and_unsubscribed_channels(realm, register_queue,
                                                          fetch_events, drain_events):
    # GIVEN a read channel message and a read DM, and a public channel the member left
    stream_id = channel(realm.owner, "later", [realm.owner, realm.member])
    in_channel = send(realm.owner, "later", "plans", "hey @**Max Member**")
    direct = dm(realm.owner, [realm.member])
    other_id = channel(realm.owner, "elsewhere", [realm.owner])
    elsewhere = send(realm.owner, "elsewhere", "t")
    drain_events()
    assert set_flags(realm.member, [in_channel, direct], "add", "read").ok
    drain_events()
    queue_id = register_queue(realm.member, event_types=["update_message_flags"])["queue_id"]
    # WHEN the member marks all three unread
    response = set_flags(realm.member, [in_channel, direct, elsewhere], "remove", "read")
    # THEN the two it receives are unread again, the other channel's is skipped and named
    assert response.ok, response.json
    assert response.json["ignored_because_not_subscribed_channels"] == [other_id]
    assert "read" not in flags_of(realm.member, in_channel)
    assert "read" not in flags_of(realm.member, direct)
    # AND the event carries what a client needs to put them back in its unread counts
    drain_events()
    [event] = flag_events(fetch_events(realm.member, queue_id))
    assert event["op"] == "remove" and event["messages"] == sorted([in_channel, direct])
    assert event["message_details"] == {
        str(in_channel): {"type": "stream", "stream_id": stream_id, "topic": "plans",
                          "mentioned": True},
        str(direct): {"type": "private", "user_ids": [realm.owner.user_id]}}


def test_silent_mentions_do_not_set_mentioned(realm, drain_events):
    channel(realm.owner, "quiet", [realm.owner, realm.member])
    silent = send(realm.owner, "quiet", "t", f"cc @_**Max Member|{realm.member.user_id}**")
    silent_group = send(realm.owner, "quiet", "t", "cc @_*nobody-group*")
    loud = send(realm.owner, "quiet", "t", "cc @**Max Member**")
    drain_events()
    assert "mentioned" not in flags_of(realm.member, silent)
    assert "mentioned" not in flags_of(realm.member, silent_group)
    assert "mentioned" in flags_of(realm.member, loud)
    message = realm.member.get(f"/messages/{silent}").json["message"]
    assert 'class="user-mention silent"' in message["content"]   # still rendered


def test_alert_words_flag_the_messages_that_contain_them(realm, drain_events):
    channel(realm.owner, "food", [realm.owner, realm.member])
    assert realm.member.post("/users/me/alert_words", {"alert_words": ["Pizza"]}).ok
    hit = send(realm.owner, "food", "t", "who wants pizza?")
    miss = send(realm.owner, "food", "t", "pizzas are different words")
    own = send(realm.member, "food", "t", "I said pizza")
    drain_events()
    assert "has_alert_word" in flags_of(realm.member, hit)
    assert "has_alert_word" not in flags_of(realm.member, miss)
    assert "has_alert_word" not in flags_of(realm.member, own)
    assert "has_alert_word" not in flags_of(realm.owner, hit)
    # WHEN the alert word is removed THEN new messages no longer get the flag
    assert realm.member.delete("/users/me/alert_words", {"alert_words": ["pizza"]}).ok
    after = send(realm.owner, "food", "t", "pizza again")
    drain_events()
    assert "has_alert_word" not in flags_of(realm.member, after)


def test_a_redelivered_message_does_not_bring_back_a_read_marker(realm, drain_events):
    from chalicelib.fanout.batch import handle_stream_batch

    # GIVEN a message delivered once and then read by its recipient
    channel(realm.owner, "again", [realm.owner, realm.member])
    message = send(realm.owner, "again", "t")
    records = drain_events.read()
    assert not handle_stream_batch({"Records": records})["batchItemFailures"]
    assert set_flags(realm.member, [message], "add", "read").ok
    # WHEN the stream offers the same records again
    assert not handle_stream_batch({"Records": records})["batchItemFailures"]
    # THEN the message stays read
    assert "read" in flags_of(realm.member, message)


def test_message_events_carry_each_recipients_flags(realm, register_queue, fetch_events,
                                                    drain_events):
    channel(realm.owner, "event-flags", [realm.owner, realm.member, realm.admin])
    queues = {a.user_id: register_queue(a, event_types=["message"])["queue_id"]
              for a in (realm.owner, realm.member, realm.admin)}
    send(realm.owner, "event-flags", "t", "@**Max Member** and @**all**")
    drain_events()
    flags = {user_id: fetch_events(account, queues[user_id])[0]["flags"]
             for user_id, account in ((realm.owner.user_id, realm.owner),
                                      (realm.member.user_id, realm.member),
                                      (realm.admin.user_id, realm.admin))}
    assert flags[realm.member.user_id] == ["mentioned", "stream_wildcard_mentioned"]
    assert flags[realm.admin.user_id] == ["stream_wildcard_mentioned"]
    assert flags[realm.owner.user_id] == ["read", "stream_wildcard_mentioned"]
