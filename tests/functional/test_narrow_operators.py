"""Every narrow operator of GET /messages, its aliases, the legacy form and negation, on
one organization's messages (and the same narrow through flags/narrow and
matches_narrow, which share the evaluator)."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import dm, narrow_ids


@dataclass
class World:
    alpha: int
    beta: int
    vault: int
    m1: int   # owner, alpha/plans, a link
    m2: int   # member, alpha/plans, an uploaded image
    m3: int   # owner, beta/✔ done (a resolved topic)
    m4: int   # owner, beta/Plans
    d1: int   # owner -> member
    d2: int   # owner -> member, admin
    v1: int   # owner, vault (private, member not subscribed)


@pytest.fixture
def world(realm, drain_events) -> World:
    alpha = channel(realm.owner, "alpha", [realm.owner, realm.member, realm.admin])
    beta = channel(realm.owner, "beta", [realm.owner, realm.member])
    vault = channel(realm.owner, "vault", [realm.owner], invite_only=True)
    w = World(
        alpha, beta, vault,
        m1=send(realm.owner, "alpha", "plans", "see https://example.com/page"),
        m2=send(realm.member, "alpha", "plans",
                "the upload [shot.png](/user_uploads/1/ab/shot.png) is here"),
        m3=send(realm.owner, "beta", "\u2714 done", "all sorted"),
        m4=send(realm.owner, "beta", "Plans", "hello again"),
        d1=dm(realm.owner, [realm.member], "just us"),
        d2=dm(realm.owner, [realm.member, realm.admin], "all three"),
        v1=send(realm.owner, "vault", "secret", "hidden words"),
    )
    drain_events()
    return w


def ids(account, *terms) -> list[int]:
    return narrow_ids(account, list(terms))


def term(operator, operand, negated=False):
    return {"operator": operator, "operand": operand, "negated": negated}


def test_channel_by_name_id_alias_and_legacy_pairs(realm, world):
    expected = [world.m1, world.m2]
    assert ids(realm.member, term("channel", "alpha")) == expected
    assert ids(realm.member, term("channel", world.alpha)) == expected
    assert ids(realm.member, term("stream", "ALPHA")) == expected
    assert ids(realm.member, ["stream", "alpha"]) == expected
    assert ids(realm.member, ["channel", str(world.alpha)], ["subject", "plans"]) == expected


def test_topic_with_and_without_a_channel(realm, world):
    assert ids(realm.member, term("channel", "beta"), term("topic", "plans")) == [world.m4]
    # a topic alone: that topic in every channel, case folded
    assert ids(realm.member, term("topic", "PLANS")) == [world.m1, world.m2, world.m4]


def test_channels_public(realm, world):
    # public channels only: never the private one, even for its subscriber
    public = [world.m1, world.m2, world.m3, world.m4]
    assert ids(realm.member, term("channels", "public")) == public
    assert ids(realm.owner, term("streams", "public")) == public
    assert ids(realm.member, term("channels", "web-public")) == []


def test_direct_message_operators(realm, world):
    assert ids(realm.member, term("dm", [realm.owner.user_id])) == [world.d1]
    assert ids(realm.member, term("pm-with", realm.owner.email)) == [world.d1]
    assert ids(realm.member, ["pm-with", f"{realm.owner.email},{realm.admin.email}"]) == [
        world.d2]
    assert ids(realm.member, term("dm", [realm.owner.user_id, realm.admin.user_id])) == [
        world.d2]
    assert ids(realm.member, term("dm-including", realm.owner.user_id)) == [world.d1, world.d2]
    assert ids(realm.member, term("group-pm-with", realm.admin.email)) == [world.d2]
    assert ids(realm.member, term("is", "dm")) == [world.d1, world.d2]
    assert ids(realm.member, ["is", "private"]) == [world.d1, world.d2]


def messages_table_reads(monkeypatch) -> list[tuple[str, str | None]]:
    """Records each read of the messages table from now on: (operation, index)."""
    import botocore.client

    from chalicelib.models.messages import Message

    reads: list[tuple[str, str | None]] = []
    original = botocore.client.BaseClient._make_api_call
    table = Message.Meta.table_name

    def recording(client, operation, params):
        if params.get("TableName") == table or table in params.get("RequestItems", {}):
            reads.append((operation, params.get("IndexName")))
        return original(client, operation, params)
    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", recording)
    return reads


def test_dm_including_reads_the_conversations_not_the_realm(realm, world, drain_events,
                                                           monkeypatch):
    # GIVEN the world's two conversations of the member with the owner, one more with the
    # admin alone, and one still in flight (sent, not yet fanned out)
    with_admin = dm(realm.admin, [realm.member], "not the owner")
    drain_events()
    in_flight = dm(realm.owner, [realm.member, realm.guest], "new conversation")
    reads = messages_table_reads(monkeypatch)
    # WHEN the member asks for the messages including the owner
    found = ids(realm.member, term("dm-including", realm.owner.user_id))
    # THEN the conversations with the owner answer, the new one too, and the messages
    # table is read only through the direct-conversation index, once per conversation
    # with the owner (never the realm's messages), and for the message in flight
    assert found == [world.d1, world.d2, in_flight] and with_admin not in found
    assert reads == [("BatchGetItem", None)] + [("Query", "by_dm")] * 3


def test_a_topic_alone_reads_the_channels_that_have_it(realm, world, monkeypatch):
    # GIVEN "plans" in alpha and (as "Plans") in beta, never in the private vault
    reads = messages_table_reads(monkeypatch)
    # WHEN the member asks for the topic without a channel
    found = ids(realm.member, term("topic", "plans"))
    # THEN both channels' messages answer, and the messages table is queried through the
    # topic index once per channel that has the topic, never the realm's messages
    assert found == [world.m1, world.m2, world.m4]
    assert reads == [("Query", "by_topic")] * 2


def test_sender(realm, world):
    assert ids(realm.member, term("sender", "me")) == [world.m2]
    # the owner's messages the member may read: never the private channel's
    owners = [world.m1, world.m3, world.m4, world.d1, world.d2]
    assert ids(realm.member, term("sender", realm.owner.user_id)) == owners
    assert ids(realm.member, term("sender", realm.owner.email.upper())) == owners
    assert ids(realm.owner, term("sender", "me"), term("channel", "vault")) == [world.v1]


def test_id_near_and_with(realm, world):
    assert ids(realm.member, term("id", world.m3)) == [world.m3]
    assert ids(realm.member, term("id", str(world.m3)), term("channel", "alpha")) == []
    assert ids(realm.member, term("channel", "alpha"), term("near", world.m2)) == [
        world.m1, world.m2]
    # with: the message's conversation, whatever channel or topic the narrow named
    assert ids(realm.member, term("with", world.m1)) == [world.m1, world.m2]
    assert ids(realm.member, term("channel", "beta"), term("with", world.m2)) == [
        world.m1, world.m2]
    assert ids(realm.member, term("with", world.d2)) == [world.d2]


def test_with_follows_a_moved_message(realm, world):
    # WHEN m2 is moved to its own topic
    moved = realm.member.patch(f"/messages/{world.m2}", {
        "topic": "moved", "propagate_mode": "change_one",
        "send_notification_to_old_thread": False, "send_notification_to_new_thread": False})
    assert moved.ok, moved.json
    # THEN with:m2 is that topic now, and with:m1 no longer holds m2
    assert ids(realm.member, term("with", world.m2)) == [world.m2]
    assert ids(realm.member, term("with", world.m1)) == [world.m1]


def test_is_resolved_and_has(realm, world):
    assert ids(realm.member, term("is", "resolved")) == [world.m3]
    assert ids(realm.member, term("has", "link")) == [world.m1, world.m2]
    assert ids(realm.member, term("has", "attachment")) == [world.m2]
    assert ids(realm.member, term("has", "image")) == [world.m2]
    assert ids(realm.member, term("has", "reaction")) == []
    reacted = realm.owner.post(f"/messages/{world.m4}/reactions", {"emoji_name": "smile"})
    assert reacted.ok, reacted.json
    assert ids(realm.member, term("has", "reaction")) == [world.m4]


def test_negation(realm, world):
    assert ids(realm.member, term("channel", "alpha", negated=True)) == [
        world.m3, world.m4, world.d1, world.d2]
    assert ids(realm.member, term("is", "dm", negated=True), term("topic", "plans")) == [
        world.m1, world.m2, world.m4]
    assert ids(realm.member, term("sender", "me", negated=True),
               term("channel", "alpha")) == [world.m1]
    assert ids(realm.member, term("has", "link", negated=True), term("channel", "alpha")) == []


def test_personal_flags_starred_alerted(realm, world, drain_events):
    assert realm.member.post("/messages/flags", {"messages": [world.m1, world.d2],
                                                 "op": "add", "flag": "starred"}).ok
    assert ids(realm.member, term("is", "starred")) == [world.m1, world.d2]
    assert ids(realm.member, term("is", "starred"), term("is", "dm", negated=True)) == [
        world.m1]
    assert realm.member.post("/users/me/alert_words", {"alert_words": ["zebra"]}).ok
    alerted = send(realm.owner, "alpha", "zoo", "a zebra escaped")
    drain_events()
    assert ids(realm.member, term("is", "alerted")) == [alerted]
    assert ids(realm.member, term("is", "unread"), term("channel", "alpha")) == [
        world.m1, alerted]


def test_followed_and_muted(realm, world):
    assert realm.member.post("/user_topics", {"stream_id": world.alpha, "topic": "plans",
                                              "visibility_policy": 3}).ok
    assert ids(realm.member, term("is", "followed")) == [world.m1, world.m2]
    assert ids(realm.member, term("is", "muted")) == []
    # a muted channel mutes its topics; a muted topic is muted wherever
    assert realm.member.post("/users/me/subscriptions/properties", {"subscription_data": [
        {"stream_id": world.beta, "property": "is_muted", "value": True}]}).ok
    assert ids(realm.member, term("is", "muted")) == [world.m3, world.m4]
    assert realm.member.post("/user_topics", {"stream_id": world.beta, "topic": "plans",
                                              "visibility_policy": 2}).ok
    assert ids(realm.member, term("is", "muted")) == [world.m3]
    assert ids(realm.member, term("is", "muted", negated=True),
               term("channel", "beta")) == [world.m4]


def test_search_finds_words_and_highlights(realm, world):
    response = realm.member.get("/messages", {
        "anchor": "newest", "num_before": 10, "num_after": 0,
        "narrow": [{"operator": "search", "operand": "UPLOAD here"}]})
    assert response.ok, response.json
    [found] = response.json["messages"]
    assert found["id"] == world.m2
    assert '<span class="highlight">upload</span>' in found["match_content"]
    assert found["match_subject"] == "plans"
    # the private channel's words are not found by a non-subscriber
    assert ids(realm.member, term("search", "hidden")) == []
    assert ids(realm.owner, term("search", "hidden")) == [world.v1]


def test_flags_by_narrow_and_matches_narrow_share_the_evaluator(realm, world):
    narrow = [term("sender", realm.owner.user_id), term("is", "dm", negated=True)]
    response = realm.member.post("/messages/flags/narrow", {
        "anchor": "oldest", "num_before": 0, "num_after": 100, "narrow": narrow,
        "op": "add", "flag": "starred"})
    assert response.ok, response.json
    assert response.json["processed_count"] == 3
    assert ids(realm.member, term("is", "starred")) == [world.m1, world.m3, world.m4]
    matches = realm.member.get("/messages/matches_narrow", {
        "msg_ids": [world.m1, world.m2, world.m3, world.d1, world.v1],
        "narrow": [term("has", "link"), term("channel", "alpha")]})
    assert matches.ok, matches.json
    assert sorted(matches.json["messages"]) == sorted([str(world.m1), str(world.m2)])


@pytest.mark.parametrize("narrow, code, fragment", [
    ([term("colour", "red")], "BAD_NARROW", "unknown operator"),
    ([term("is", "bogus")], "BAD_NARROW", "'is' operand"),
    ([term("has", "pictures")], "BAD_NARROW", "'has' operand"),
    ([term("channels", "private")], "BAD_NARROW", "'channels' operand"),
    ([term("channel", "nowhere")], "BAD_NARROW", "unknown channel"),
    ([term("channel", 999999)], "BAD_NARROW", "unknown channel"),
    ([term("sender", "nobody@example.com")], "BAD_NARROW", "the person it names does not exist"),
    ([term("dm", [999999])], "BAD_NARROW", "the person it names does not exist"),
    ([term("near", 5, negated=True)], "BAD_NARROW", "cannot be negated"),
    ([term("with", 1), term("with", 2)], "BAD_NARROW", "cannot be combined"),
    # id, near, with: a number or its digits that names no message id is BAD_NARROW, as
    # the reference answers; an operand of another type is a malformed term
    ([term("id", "seven")], "BAD_NARROW", "operand for id"),
    ([term("id", -3)], "BAD_NARROW", "operand for id"),
    ([term("id", "-3")], "BAD_NARROW", "operand for id"),
    ([term("id", True)], "BAD_NARROW", "operand for id"),
    ([term("id", "9" * 40)], "BAD_NARROW", "operand for id"),
    ([term("near", "soon")], "BAD_NARROW", "operand for near"),
    ([["near", "12a"]], "BAD_NARROW", "operand for near"),
    ([term("with", "latest")], "BAD_NARROW", "operand for with"),
    ([term("with", -1)], "BAD_NARROW", "operand for with"),
    ([term("with", 999999)], "BAD_NARROW", "operand for with"),
    ([term("id", [1])], "BAD_REQUEST", "operand for id"),
    ([term("with", {"id": 1})], "BAD_REQUEST", "operand for with"),
    ([term("near", None)], "BAD_REQUEST", "operand for near"),
    ([term("topic", 5)], "BAD_REQUEST", "operand for topic"),
    ([term("sender", ["a@b.c", "d@e.f"])], "BAD_REQUEST", "operand for sender"),
    ([{"operator": "channel", "operand": "alpha", "extra": 1}], "BAD_REQUEST", "term"),
    ([{"operator": "channel", "operand": "alpha", "negated": "yes"}], "BAD_REQUEST", "term"),
    ([["channel"]], "BAD_REQUEST", "term"),
])
def test_invalid_narrows(realm, narrow, code, fragment):
    channel(realm.owner, "alpha", [realm.owner, realm.member])
    for path, params in (("/messages", {"anchor": "newest", "num_before": 5,
                                        "num_after": 0}),
                         ("/messages/matches_narrow", {"msg_ids": [1]})):
        response = realm.member.get(path, {**params, "narrow": narrow})
        assert response.status == 400, response.json
        assert response.json["code"] == code and fragment in response.json["msg"], \
            response.json


def test_the_terminal_client_search(realm, world, drain_events):
    # GIVEN the request the official terminal client sends for its "/" search: legacy
    # pairs, anchor 0 with use_first_unread_anchor, JSON booleans
    later = send(realm.owner, "beta", "news", "Planning the uploads for tomorrow")
    drain_events()
    assert realm.member.post("/messages/flags", {"messages": [world.m2], "op": "add",
                                                 "flag": "read"}).ok
    for narrow, expected in (([["search", "uploads"]], [world.m2, later]),
                             ([["stream", "alpha"], ["search", "upload"]], [world.m2])):
        response = realm.member.get("/messages", {
            "anchor": 0, "num_before": 30, "num_after": 10, "apply_markdown": True,
            "use_first_unread_anchor": True, "client_gravatar": True, "narrow": narrow})
        # THEN it finds the messages (words match their inflections), highlighted
        assert response.ok, response.json
        assert [m["id"] for m in response.json["messages"]] == expected
        assert all('<span class="highlight">' in m["match_content"]
                   for m in response.json["messages"])
