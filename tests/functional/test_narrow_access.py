"""Narrows never show, count or flag what the caller may not read: a private channel the
caller is not in, history before joining a channel that protects it, and guests."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import narrow_ids


def term(operator, operand, negated=False):
    return {"operator": operator, "operand": operand, "negated": negated}


def page(account, narrow, anchor="newest", **params):
    response = account.get("/messages", {"anchor": anchor, "num_before": 50,
                                         "num_after": 50, "narrow": narrow, **params})
    assert response.ok, response.json
    return response.json


def flags(body):
    return body["found_anchor"], body["found_oldest"], body["found_newest"]


def test_a_private_channel_the_caller_is_not_in(realm, drain_events):
    # GIVEN a private channel of the owner, and a public one the member reads
    vault = channel(realm.owner, "vault", [realm.owner], invite_only=True)
    channel(realm.owner, "open", [realm.owner, realm.member])
    public = send(realm.owner, "open", "t", "ordinary words")
    secret = send(realm.owner, "vault", "t", "classified words")
    drain_events()
    # THEN naming it is the same error as naming no channel at all
    for operand in (vault, "vault"):
        hidden = realm.member.get("/messages", {"anchor": "newest", "num_before": 5,
                                                "num_after": 0,
                                                "narrow": [term("channel", operand)]})
        missing = realm.member.get("/messages", {"anchor": "newest", "num_before": 5,
                                                 "num_after": 0,
                                                 "narrow": [term("channel", 999999)]})
        assert (hidden.status, hidden.json) == (missing.status, missing.json)
    # AND nothing of it shows through other operators, counts or flags
    assert narrow_ids(realm.member, [term("search", "words")]) == [public]
    assert narrow_ids(realm.member, [term("id", secret)]) == []
    assert narrow_ids(realm.member, [term("sender", realm.owner.user_id)]) == [public]
    assert narrow_ids(realm.member, [term("topic", "t")]) == [public]
    assert narrow_ids(realm.member, [term("channel", "open", negated=True)]) == []
    body = page(realm.member, [term("id", secret)], anchor=str(secret))
    assert (body["messages"], flags(body)) == ([], (False, True, True))
    # with: a message the caller may not read, with nothing else naming a conversation,
    # is refused as naming no message (the same answer as for a missing one)
    refused = realm.member.get("/messages", {"anchor": "newest", "num_before": 5,
                                             "num_after": 0, "narrow": [term("with", secret)]})
    missing = realm.member.get("/messages", {"anchor": "newest", "num_before": 5,
                                             "num_after": 0, "narrow": [term("with", 999999)]})
    assert (refused.status, refused.json["code"]) == (400, "BAD_NARROW")
    assert refused.json == missing.json
    # and beside a channel and a topic it leaves them to narrow
    assert narrow_ids(realm.member, [term("with", secret), term("channel", "open"),
                                     term("topic", "t")]) == [public]
    listed = realm.member.get("/messages", {"message_ids": [secret, public]})
    assert [m["id"] for m in listed.json["messages"]] == [public]
    matched = realm.member.get("/messages/matches_narrow", {
        "msg_ids": [secret, public], "narrow": [term("search", "words")]})
    assert list(matched.json["messages"]) == [str(public)]
    flagged = realm.member.post("/messages/flags/narrow", {
        "anchor": "oldest", "num_before": 0, "num_after": 100,
        "narrow": [term("search", "words")], "op": "add", "flag": "starred"})
    assert flagged.json["processed_count"] == 1
    # AND its subscriber finds it
    assert narrow_ids(realm.owner, [term("search", "classified")]) == [secret]


def test_protected_history_before_joining(realm, drain_events):
    # GIVEN a private channel without shared history, where the member joined late
    channel(realm.owner, "secret", [realm.owner], invite_only=True,
            history_public_to_subscribers=False)
    early = [send(realm.owner, "secret", "plans", f"early note {n}") for n in range(2)]
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "secret"}], "principals": [realm.member.user_id],
        "send_new_subscription_messages": False}).ok
    late = [send(realm.owner, "secret", "plans", f"late note {n}") for n in range(2)]
    drain_events()
    # THEN every narrow shows only what came after, and says the history ends there
    for narrow in ([term("channel", "secret")], [term("search", "note")],
                   [term("channel", "secret"), term("topic", "plans")],
                   [term("sender", realm.owner.email)]):
        body = page(realm.member, narrow)
        assert [m["id"] for m in body["messages"]] == late, narrow
        assert body["found_oldest"] and body["found_newest"]
    body = page(realm.member, [term("channel", "secret")], anchor=str(early[1]))
    assert ([m["id"] for m in body["messages"]], flags(body)) == (late, (False, True, True))
    assert narrow_ids(realm.member, [term("with", early[0]), term("channel", "secret"),
                                     term("topic", "plans")]) == late
    assert narrow_ids(realm.owner, [term("with", early[0])]) == early + late


def test_guests_read_only_their_channels(realm, drain_events):
    # GIVEN a public channel the guest is not in, and one the guest is in
    channel(realm.owner, "lobby", [realm.owner])
    channel(realm.owner, "guests", [realm.owner, realm.guest])
    outside = send(realm.owner, "lobby", "t", "shared words")
    inside = send(realm.owner, "guests", "t", "shared words")
    drain_events()
    # THEN the guest finds only the messages of its channel, by any operator
    error = realm.guest.get("/messages", {"anchor": "newest", "num_before": 5,
                                          "num_after": 0, "narrow": [term("channel", "lobby")]})
    assert (error.status, error.json["code"]) == (400, "BAD_NARROW")
    assert narrow_ids(realm.guest, [term("channels", "public")]) == [inside]
    assert narrow_ids(realm.guest, [term("search", "shared")]) == [inside]
    assert narrow_ids(realm.guest, [term("id", outside)]) == []
    # AND a member (not in the lobby either) reads the public channel's history
    assert narrow_ids(realm.member, [term("channels", "public")]) == [outside, inside]
    assert narrow_ids(realm.member, [term("channel", "lobby")]) == [outside]
