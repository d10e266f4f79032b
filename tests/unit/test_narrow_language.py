"""The narrow package without AWS: parsing the wire forms and evaluating message facts."""
from __future__ import annotations

import pytest

from chalicelib.core.errors import ApiError
from chalicelib.narrow import (
    BadNarrowError,
    Evaluator,
    MessageFacts,
    Narrow,
    ReaderContext,
    Term,
    event_facts,
    parse_narrow,
)
from chalicelib.narrow.facts import SendFacts


def facts(**overrides) -> MessageFacts:
    base = {"message_id": 10, "is_channel": True, "stream_id": 3, "channel_name": "Talk",
            "channel_public": True, "channel_web_public": False, "topic": "Plans",
            "sender_id": 7, "sender_email": "ann@example.com", "participants": frozenset(),
            "content": "see https://example.com", "rendered_content": "<p>see</p>",
            "has_reactions": False, "flags": frozenset({"read"})}
    return MessageFacts(**{**base, **overrides})


def test_aliases_and_legacy_pairs_parse_to_the_same_terms():
    modern = parse_narrow([{"operator": "channel", "operand": "Talk"},
                           {"operator": "topic", "operand": "plans"},
                           {"operator": "dm-including", "operand": 7, "negated": True},
                           {"operator": "is", "operand": "dm"}])
    legacy = parse_narrow([["stream", "Talk"], ["subject", "plans"],
                           {"operator": "dm-including", "operand": "7", "negated": True},
                           ["is", "private"]])
    assert modern == legacy == Narrow((Term("channel", "Talk"), Term("topic", "plans"),
                                       Term("dm-including", 7, True), Term("is", "dm")))
    assert parse_narrow([["pm-with", "a@x.org, b@x.org"]]).terms == parse_narrow(
        [["pm_with", "A@x.org,b@X.org ,a@x.org"]]).terms == (
        Term("dm", ("a@x.org", "b@x.org")),)
    # group-pm-with is an operator of its own (group conversations only)
    assert parse_narrow([["group_pm_with", "7"]]).terms == (Term("group-pm-with", 7),)
    assert parse_narrow([["channel", "12"]]).terms == (Term("channel", 12),)


@pytest.mark.parametrize("raw, error", [
    ([["nope", "x"]], BadNarrowError),
    ([["is", "shiny"]], BadNarrowError),
    ([["has", "smell"]], BadNarrowError),
    ([{"operator": "near", "operand": 1, "negated": True}], BadNarrowError),
    ([["with", 1], ["with", 2]], BadNarrowError),
    ([["id", "x"]], BadNarrowError),       # names no message id, as the reference
    ([["with", "-2"]], BadNarrowError),
    ([{"operator": "near", "operand": [5]}], ApiError),   # not a number or text at all
    ([["dm", [True]]], ApiError),
    ([["sender", "not-an-email"]], ApiError),
    (["channel"], ApiError),
    ({"operator": "channel"}, ApiError),
])
def test_invalid_terms(raw, error):
    with pytest.raises(error) as raised:
        parse_narrow(raw)
    assert ("BAD_NARROW" if error is BadNarrowError else "BAD_REQUEST") == raised.value.code


def evaluate(raw, message: MessageFacts, reader: ReaderContext | None = None) -> bool:
    return Evaluator(parse_narrow(raw), reader or ReaderContext(7)).matches(message)


def test_terms_are_and_ed_and_negation_inverts_one():
    assert evaluate([["channel", 3], ["topic", "PLANS"]], facts())
    assert not evaluate([["channel", 3], ["topic", "other"]], facts())
    assert evaluate([{"operator": "channel", "operand": 4, "negated": True}], facts())
    assert evaluate([["channel", "talk"]], facts())   # a name, as older queues kept
    assert evaluate([], facts())


def test_flags_and_topic_settings():
    unread = facts(flags=frozenset({"starred", "mentioned"}))
    assert evaluate([["is", "unread"], ["is", "starred"], ["is", "mentioned"]], unread)
    assert not evaluate([["is", "alerted"]], unread)
    reader = ReaderContext(7, followed_topics=frozenset({(3, "plans")}),
                           muted_channels=frozenset({3}))
    assert evaluate([["is", "followed"]], facts(), reader)
    assert not evaluate([["is", "muted"]], facts(), reader)   # followed wins in a muted channel
    assert evaluate([["is", "muted"]], facts(topic="other"), reader)


def test_has_and_resolved():
    assert evaluate([["has", "link"]], facts())
    image = facts(content="[a](/user_uploads/1/ab/a.png)", rendered_content="<p>a</p>")
    assert evaluate([["has", "attachment"], ["has", "image"]], image)
    assert not evaluate([["has", "image"]], facts(content="/user_uploads/1/ab/notes.txt"))
    assert evaluate([["is", "resolved"]], facts(topic="\u2714 Plans"))


def test_direct_messages_from_an_event():
    message = {"id": 5, "type": "private", "sender_id": 8, "sender_email": "bo@example.com",
               "display_recipient": [{"id": 7}, {"id": 8}], "content": "<p>hi</p>"}
    dm = event_facts(message, ["read"], SendFacts(raw_content="hi"))
    assert evaluate([["dm", [8]]], dm) and evaluate([["is", "dm"]], dm)
    assert evaluate([["dm-including", 8]], dm) and not evaluate([["dm", [8, 9]]], dm)
    assert evaluate([["sender", "BO@example.com"]], dm)
    assert not evaluate([["sender", "me"]], dm)
