"""Event queues registered with a narrow: resolved when registered, evaluated by the
same evaluator as GET /messages on each message event."""
from __future__ import annotations

import pytest

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import dm


def term(operator, operand, negated=False):
    return {"operator": operator, "operand": operand, "negated": negated}


def message_ids(events):
    return [e["message"]["id"] for e in events if e["type"] == "message"]


def test_narrowed_queues_get_only_matching_messages(realm, register_queue, fetch_events,
                                                    drain_events):
    # GIVEN two channels of the member and queues with different narrows
    alpha = channel(realm.owner, "alpha", [realm.owner, realm.member])
    channel(realm.owner, "beta", [realm.owner, realm.member])
    narrows = {
        "sender": [term("sender", realm.owner.email)],
        "not alpha": [term("channel", alpha, negated=True)],
        "legacy topic": [["stream", "alpha"], ["subject", "Plans"]],
        "dm": [term("is", "dm")],
        "dm-including": [term("dm-including", realm.admin.user_id)],
        "link": [term("has", "link")],
        "mentioned": [term("is", "mentioned")],
        "resolved": [term("is", "resolved")],
    }
    queues = {name: register_queue(realm.member, event_types=["message"],
                                   narrow=narrow)["queue_id"]
              for name, narrow in narrows.items()}
    # WHEN messages of every kind are sent
    a_plans = send(realm.owner, "alpha", "plans", "see https://example.com")
    a_mine = send(realm.member, "alpha", "other", "mine")
    b_mention = send(realm.owner, "beta", "\u2714 fixed", "@**Max Member** done")
    direct = dm(realm.owner, [realm.member])
    group = dm(realm.admin, [realm.member, realm.owner])
    drain_events()
    # THEN each queue got what its narrow holds
    got = {name: message_ids(fetch_events(realm.member, queue_id))
           for name, queue_id in queues.items()}
    assert got == {
        "sender": [a_plans, b_mention, direct],
        "not alpha": [b_mention, direct, group],
        "legacy topic": [a_plans],
        "dm": [direct, group],
        "dm-including": [group],
        "link": [a_plans],
        "mentioned": [b_mention],
        "resolved": [b_mention],
    }
    assert a_mine


def test_with_resolves_to_the_conversation_when_registered(realm, register_queue,
                                                            fetch_events, drain_events):
    channel(realm.owner, "alpha", [realm.owner, realm.member])
    first = send(realm.owner, "alpha", "plans", "first")
    drain_events()
    queue_id = register_queue(realm.member, event_types=["message"],
                              narrow=[term("with", first)])["queue_id"]
    same = send(realm.owner, "alpha", "plans", "same topic")
    send(realm.owner, "alpha", "elsewhere", "other topic")
    drain_events()
    assert message_ids(fetch_events(realm.member, queue_id)) == [same]


def test_content_and_privacy_narrows_are_decided_on_the_event(realm, register_queue,
                                                               fetch_events, drain_events):
    # GIVEN a public and a private channel of the member, and queues narrowed by what
    # only the message's text or its channel's privacy tells
    channel(realm.owner, "alpha", [realm.owner, realm.member])
    channel(realm.owner, "vault", [realm.owner, realm.member], invite_only=True)
    narrows = {
        "public": [term("channels", "public")],
        "not public": [term("channels", "public", negated=True)],
        "search": [term("search", "deploying")],
        "not search": [term("search", "deploy", negated=True)],
        "topic search": [term("search", "roadmap")],
        "phrase in vault": [["stream", "vault"], ["search", '"red button"']],
    }
    queues = {name: register_queue(realm.member, event_types=["message"],
                                   narrow=narrow)["queue_id"]
              for name, narrow in narrows.items()}
    # WHEN messages are sent to both channels and directly
    deploys = send(realm.owner, "alpha", "ops", "We deployed the fix")
    roadmap = send(realm.owner, "alpha", "Roadmap", "next quarter")
    button = send(realm.owner, "vault", "secrets", "Never press the red button")
    reversed_words = send(realm.owner, "vault", "secrets", "a button that is red")
    direct = dm(realm.owner, [realm.member], "deploy tonight?")
    drain_events()
    # THEN each queue got the messages its narrow holds, as GET /messages would give
    got = {name: message_ids(fetch_events(realm.member, queue_id))
           for name, queue_id in queues.items()}
    assert got == {
        "public": [deploys, roadmap],
        "not public": [button, reversed_words, direct],
        "search": [deploys, direct],
        "not search": [roadmap, button, reversed_words],
        "topic search": [roadmap],
        "phrase in vault": [button],
    }
    for name, narrow in narrows.items():
        fetched = realm.member.get("/messages", {"anchor": "oldest", "num_before": 0,
                                                 "num_after": 100, "narrow": narrow})
        assert fetched.ok, fetched.json
        assert [m["id"] for m in fetched.json["messages"]] == got[name], name


def test_is_muted_follows_the_owners_topic_and_channel_settings(realm, register_queue,
                                                                 fetch_events,
                                                                 drain_events):
    # GIVEN a muted topic in alpha, and beta muted except for its unmuted topic "kept"
    alpha = channel(realm.owner, "alpha", [realm.owner, realm.member])
    beta = channel(realm.owner, "beta", [realm.owner, realm.member])
    assert realm.member.post("/user_topics", {"stream_id": alpha, "topic": "noisy",
                                              "visibility_policy": 1}).ok
    assert realm.member.post("/users/me/subscriptions/properties", {"subscription_data": [
        {"stream_id": beta, "property": "is_muted", "value": True}]}).ok
    assert realm.member.post("/user_topics", {"stream_id": beta, "topic": "kept",
                                              "visibility_policy": 2}).ok
    narrows = {"muted": [term("is", "muted")],
               "not muted": [term("is", "muted", negated=True)]}
    queues = {name: register_queue(realm.member, event_types=["message"],
                                   narrow=narrow)["queue_id"]
              for name, narrow in narrows.items()}
    # WHEN messages are sent to every kind of topic, and directly
    noisy = send(realm.owner, "alpha", "Noisy", "muted topic")
    quiet = send(realm.owner, "alpha", "other", "not muted")
    in_muted_channel = send(realm.owner, "beta", "any", "muted channel")
    kept = send(realm.owner, "beta", "kept", "unmuted topic")
    direct = dm(realm.owner, [realm.member], "never muted")
    drain_events()
    # THEN the queues split them as GET /messages does
    got = {name: message_ids(fetch_events(realm.member, queue_id))
           for name, queue_id in queues.items()}
    assert got == {"muted": [noisy, in_muted_channel],
                   "not muted": [quiet, kept, direct]}
    for name, narrow in narrows.items():
        fetched = realm.member.get("/messages", {"anchor": "oldest", "num_before": 0,
                                                 "num_after": 100, "narrow": narrow})
        assert [m["id"] for m in fetched.json["messages"]] == got[name], name


# Every operator GET /messages knows, registered for an event queue: what a message
# event (with the owner's flags and topic settings) decides is accepted; is:followed and
# a position are refused with BAD_REQUEST, as the reference refuses them.
ACCEPTED = [
    term("channel", "alpha"), term("stream", "alpha"), term("channels", "public"),
    term("topic", "plans"), term("subject", "plans"), term("dm", "{admin}"),
    term("pm-with", "{admin}"), term("dm-including", "{admin}"),
    term("group-pm-with", "{admin}"), term("sender", "me"), term("id", 1),
    term("with", "{message}"), term("is", "dm"), term("is", "private"), term("is", "starred"),
    term("is", "mentioned"), term("is", "alerted"), term("is", "unread"),
    term("is", "resolved"), term("is", "muted"), term("has", "link"), term("has", "attachment"),
    term("has", "image"), term("has", "reaction"), term("search", "words"),
]


@pytest.mark.parametrize("narrow_term", ACCEPTED,
                         ids=lambda t: f"{t['operator']}:{t['operand']}")
def test_every_operator_a_message_event_decides_is_accepted(realm, narrow_term):
    channel(realm.owner, "alpha", [realm.owner, realm.member])
    if narrow_term["operand"] == "{admin}":
        narrow_term = {**narrow_term, "operand": [realm.admin.user_id]}
        if narrow_term["operator"] in ("dm-including", "group-pm-with"):
            narrow_term["operand"] = realm.admin.user_id
    if narrow_term["operand"] == "{message}":   # with: a message the member may read
        narrow_term = {**narrow_term, "operand": send(realm.owner, "alpha", "t", "hello")}
    response = realm.member.post("/register", {"event_types": ["message"],
                                               "narrow": [narrow_term]})
    assert response.ok, response.json


@pytest.mark.parametrize("narrow, code, fragment", [
    ([term("is", "followed")], "BAD_REQUEST", "is:followed"),
    ([["near", "12"]], "BAD_REQUEST", "'near'"),
    ([term("channel", "nowhere")], "BAD_NARROW", "unknown channel"),
    ([term("sender", "nobody@example.com")], "BAD_NARROW", "the person it names does not exist"),
    ([term("colour", "red")], "BAD_REQUEST", "'colour'"),
    ([["is", "bogus"]], "BAD_NARROW", "unknown 'is' operand"),
])
def test_queue_narrows_that_are_refused(realm, narrow, code, fragment):
    response = realm.member.post("/register", {"event_types": ["message"], "narrow": narrow})
    assert response.status == 400, response.json
    assert response.json["code"] == code and fragment in response.json["msg"]


def test_a_private_channel_cannot_be_watched_by_name(realm):
    channel(realm.owner, "vault", [realm.owner], invite_only=True)
    response = realm.member.post("/register", {"narrow": [["channel", "vault"]]})
    assert (response.status, response.json["msg"]) == (
        400, "This narrow cannot be used: unknown channel")
