"""`has:` narrows read the sparse has: index (models/message_properties.py): found past
any number of other messages, kept exact by send, edit, reactions, deletion and moves,
backfilled by `admin reindex`, and never showing what the caller may not read."""
from __future__ import annotations

import pytest

from chalicelib.actions.messages.reads import properties as has_source
from chalicelib.actions.messages.reads import range as message_range
from chalicelib.models.message_properties import MessageProperty, property_key
from tests.functional.edit_helpers import bulk_messages, channel, send

IMAGE = "look [shot.png](/user_uploads/1/ab/shot.png) here"
LINK = "see https://example.com/page"


def term(operator, operand, negated=False):
    return {"operator": operator, "operand": operand, "negated": negated}


def get(account, narrow, anchor="newest", num_before=20, num_after=0):
    response = account.get("/messages", {"anchor": anchor, "num_before": num_before,
                                         "num_after": num_after, "narrow": narrow})
    assert response.ok, response.json
    body = response.json
    return ([m["id"] for m in body["messages"]],
            (body["found_anchor"], body["found_oldest"], body["found_newest"]))


def rows(realm_id: int, name: str) -> list[int]:
    return [int(r.message_id) for r in MessageProperty.query(property_key(realm_id, name))]


@pytest.fixture
def feed(realm) -> int:
    return channel(realm.owner, "feed", [realm.owner, realm.member])


def test_an_old_image_is_found_past_the_examination_cap(realm, feed, drain_events,
                                                        monkeypatch):
    # GIVEN an image, then more ordinary messages than a request examines
    image = send(realm.owner, "feed", "t", IMAGE)
    bulk_messages(realm.realm_id, realm.owner.user_id, feed, "t", 30)
    drain_events()
    monkeypatch.setattr(message_range, "MAX_SKIPPED", 10)
    # THEN has:image finds it and reaches both ends, alone or beside a channel
    done = (False, True, True)   # `newest` and `oldest` are no message: none is found
    assert get(realm.member, [term("has", "image")]) == ([image], done)
    assert get(realm.member, [term("has", "attachment"), term("channel", "feed")]) == (
        [image], done)
    assert get(realm.member, [term("has", "image")], anchor="oldest", num_before=0,
               num_after=5) == ([image], done)
    # AND the realm's message list (the old source) stops at the cap and finds nothing
    monkeypatch.setattr(has_source, "RARE", ())
    monkeypatch.setattr(has_source, "COMMON", ())
    assert get(realm.member, [term("has", "image")]) == ([], (False, False, True))


def test_an_image_the_caller_may_not_read_shows_nowhere(realm, feed, drain_events):
    # GIVEN an image in a private channel the member is not in, older than a public one
    channel(realm.owner, "vault", [realm.owner], invite_only=True)
    secret = send(realm.owner, "vault", "t", IMAGE)
    public = send(realm.owner, "feed", "t", IMAGE)
    channel(realm.owner, "lobby", [realm.owner])   # public, but the guest is not in it
    lobby = send(realm.owner, "lobby", "t", IMAGE)
    drain_events()
    # THEN the member gets the one it received, and the flags say nothing of the others
    assert get(realm.member, [term("has", "image")], num_before=1) == (
        [public], (False, False, True))
    assert get(realm.member, [term("has", "image")], num_before=2) == (
        [public], (False, True, True))
    assert get(realm.member, [term("has", "image")], anchor=str(secret), num_before=5,
               num_after=5) == ([public], (False, True, True))
    # AND the public channels' history adds the lobby's, never the private one's
    public_channels = [term("channels", "public"), term("has", "image")]
    assert get(realm.member, public_channels, num_before=1) == ([lobby], (False, False, True))
    assert get(realm.member, public_channels, num_before=3) == (
        [public, lobby], (False, True, True))
    # AND a guest sees no image of channels it is not in
    assert get(realm.guest, [term("has", "image")]) == ([], (False, True, True))
    # AND the owner, who reads the channel, finds all three
    assert get(realm.owner, [term("has", "image")])[0] == [secret, public, lobby]


def test_an_edit_adds_and_removes_the_properties(realm, feed, drain_events):
    # GIVEN a message with a link
    message = send(realm.owner, "feed", "t", LINK)
    drain_events()
    assert get(realm.member, [term("has", "link")])[0] == [message]
    # WHEN an edit removes the link THEN has:link no longer lists it
    assert realm.owner.patch(f"/messages/{message}", {"content": "plain words"}).ok
    assert get(realm.member, [term("has", "link")]) == ([], (False, True, True))
    assert rows(realm.realm_id, "link") == []
    # WHEN an edit adds an uploaded image (a link to it too) THEN all three list it
    edited = realm.owner.patch(f"/messages/{message}", {"content": IMAGE})
    assert edited.ok, edited.json
    for name in ("link", "attachment", "image"):
        assert get(realm.member, [term("has", name)])[0] == [message]
    # WHEN an edit removes it again THEN no row is left
    assert realm.owner.patch(f"/messages/{message}", {"content": "plain again"}).ok
    assert [rows(realm.realm_id, p) for p in ("link", "attachment", "image")] == [[], [], []]
    assert get(realm.member, [term("has", "image")]) == ([], (False, True, True))


def test_has_reaction_goes_with_the_last_reaction(realm, feed, drain_events):
    # GIVEN a message with two reactions
    message = send(realm.owner, "feed", "t", "react to me")
    send(realm.owner, "feed", "t", "no reactions")
    for account in (realm.owner, realm.member):
        added = account.post(f"/messages/{message}/reactions", {"emoji_name": "smile"})
        assert added.ok, added.json
    assert get(realm.member, [term("has", "reaction")])[0] == [message]
    # WHEN one is removed THEN the message still has a reaction
    assert realm.owner.delete(f"/messages/{message}/reactions", {"emoji_name": "smile"}).ok
    assert get(realm.member, [term("has", "reaction")])[0] == [message]
    assert rows(realm.realm_id, "reaction") == [message]
    # WHEN the last is removed THEN has:reaction is empty and so is the index
    assert realm.member.delete(f"/messages/{message}/reactions", {"emoji_name": "smile"}).ok
    assert get(realm.member, [term("has", "reaction")]) == ([], (False, True, True))
    assert rows(realm.realm_id, "reaction") == []
    # AND a new first reaction lists it again
    assert realm.member.post(f"/messages/{message}/reactions", {"emoji_name": "tada"}).ok
    assert get(realm.member, [term("has", "reaction")])[0] == [message]


def test_a_move_keeps_and_a_deletion_drops_the_rows(realm, feed, drain_events):
    # GIVEN an image in feed, moved to another channel
    other = channel(realm.owner, "other", [realm.owner, realm.member])
    image = send(realm.owner, "feed", "t", IMAGE)
    moved = realm.owner.patch(f"/messages/{image}", {
        "stream_id": other, "propagate_mode": "change_one",
        "send_notification_to_old_thread": False, "send_notification_to_new_thread": False})
    assert moved.ok, moved.json
    # THEN has:image finds it in its new channel and not in the old one
    assert get(realm.member, [term("has", "image"), term("channel", "other")])[0] == [image]
    assert get(realm.member, [term("has", "image"), term("channel", "feed")])[0] == []
    # WHEN it is deleted THEN its rows are gone
    assert realm.owner.delete(f"/messages/{image}").ok
    assert get(realm.member, [term("has", "image")]) == ([], (False, True, True))
    assert [rows(realm.realm_id, p) for p in ("attachment", "image")] == [[], []]


def test_negated_has_and_conversations_keep_their_sources(realm, feed, drain_events):
    link = send(realm.owner, "feed", "t", LINK)
    plain = send(realm.owner, "feed", "t", "plain")
    other = send(realm.owner, "feed", "u", LINK)
    assert get(realm.member, [term("has", "link", negated=True)])[0] == [plain]
    assert get(realm.member, [term("has", "link"), term("channel", "feed"),
                              term("topic", "t")])[0] == [link]
    assert get(realm.member, [term("has", "link"), term("sender", realm.owner.user_id)]
               )[0] == [link, other]


def test_reindex_backfills_the_rows_and_resumes(realm, feed, drain_events):
    from chalicelib.actions.workflows.reindex_properties import backfill_properties

    # GIVEN messages sent before the has: index existed (their rows removed)
    image = send(realm.owner, "feed", "t", IMAGE)
    link = send(realm.owner, "feed", "t", LINK)
    assert realm.member.post(f"/messages/{link}/reactions", {"emoji_name": "smile"}).ok
    send(realm.owner, "feed", "t", "plain")
    for name in ("link", "attachment", "image", "reaction"):
        for message_id in rows(realm.realm_id, name):
            MessageProperty(property_key(realm.realm_id, name), message_id).delete()
    assert get(realm.member, [term("has", "image")])[0] == []
    # WHEN the backfill runs from below the link (a resumed run) THEN only the image
    assert backfill_properties(realm.realm_id, before_id=link) == {
        "property_messages_read": 1, "property_rows_put": 3}   # link, attachment, image
    assert get(realm.member, [term("has", "image")])[0] == [image]
    assert get(realm.member, [term("has", "reaction")])[0] == []
    # WHEN the whole reindex runs (twice: it is idempotent) THEN every row is back
    from chalicelib.actions.workflows.reindex import do_reindex_realm

    for _ in range(2):
        result = do_reindex_realm(realm.realm_id)
        assert result["property_rows_put"] == 5
        assert get(realm.member, [term("has", "link")])[0] == [image, link]
        assert get(realm.member, [term("has", "reaction")])[0] == [link]
        assert get(realm.member, [term("has", "attachment")])[0] == [image]


def test_is_resolved_follows_resolving_and_unresolving(realm, feed, drain_events,
                                                       monkeypatch):
    from chalicelib.actions.messages import move as message_move

    # GIVEN a topic of 12 messages (written in batches of 4 messages and 4 rows), among
    # more other messages than a request examines
    monkeypatch.setattr(message_move, "MESSAGES_PER_BATCH", 8)
    topic = bulk_messages(realm.realm_id, realm.owner.user_id, feed, "bug", 12)
    bulk_messages(realm.realm_id, realm.owner.user_id, feed, "other", 20)
    monkeypatch.setattr(message_range, "MAX_SKIPPED", 10)
    resolved = [term("is", "resolved")]
    assert get(realm.member, resolved) == ([], (False, True, True))
    # WHEN the topic is resolved
    done = realm.owner.patch(f"/messages/{topic[0]}", {
        "topic": "\u2714 bug", "propagate_mode": "change_all",
        "send_notification_to_old_thread": False, "send_notification_to_new_thread": True})
    assert done.ok, done.json
    # THEN is:resolved lists every message of it, and the notice sent there
    found, flags = get(realm.member, resolved, num_before=50)
    assert found[:-1] == topic and flags == (False, True, True)
    notice = found[-1]
    assert rows(realm.realm_id, "resolved") == [*topic, notice]
    # WHEN it is unresolved THEN is:resolved is empty and so is the index
    undone = realm.owner.patch(f"/messages/{topic[0]}", {
        "topic": "bug", "propagate_mode": "change_all",
        "send_notification_to_old_thread": False, "send_notification_to_new_thread": False})
    assert undone.ok, undone.json
    assert get(realm.member, resolved) == ([], (False, True, True))
    assert rows(realm.realm_id, "resolved") == []
    # AND a message sent to a resolved topic is listed at once
    late = send(realm.owner, "feed", "\u2714 done", "a late note")
    assert get(realm.member, resolved)[0] == [late]


def test_a_reaction_added_while_the_last_is_removed_keeps_the_row(realm, feed,
                                                                  monkeypatch):
    from chalicelib.actions.messages import reactions
    from chalicelib.models.messages import Message, reaction_key

    # GIVEN a message with one reaction
    message = send(realm.owner, "feed", "t", "react to me")
    assert realm.owner.post(f"/messages/{message}/reactions", {"emoji_name": "smile"}).ok
    # AND another reaction that lands after its removal read the message, before it writes
    real = reactions._write
    raced: list[bool] = []

    def racing(*args, **kwargs):
        if not raced:
            raced.append(True)
            key = reaction_key("unicode_emoji", "1f389", realm.member.user_id)
            Message(realm.realm_id, message).update(actions=[
                Message.reactions[key].set({"emoji_name": "tada", "at": 1})])
        return real(*args, **kwargs)

    monkeypatch.setattr(reactions, "_write", racing)
    # WHEN the reaction it read as the last one is removed
    assert realm.owner.delete(f"/messages/{message}/reactions", {"emoji_name": "smile"}).ok
    # THEN the removal saw the map change (it read again) and the row stays
    assert raced and rows(realm.realm_id, "reaction") == [message]
    assert get(realm.member, [term("has", "reaction")])[0] == [message]
