"""Which narrows read the has: index (actions/messages/reads/properties.py), and the one
property test it and the evaluator share (rules/message_properties.py); no AWS."""
from __future__ import annotations

import pytest

from chalicelib.actions.messages.reads.properties import indexed_property
from chalicelib.narrow import Narrow, Term
from chalicelib.rules.message_properties import content_properties, is_resolved_topic


def narrow(*terms: tuple[str, object] | tuple[str, object, bool]) -> Narrow:
    return Narrow(tuple(Term(*t) for t in terms))  # type: ignore[arg-type]


@pytest.mark.parametrize(("terms", "expected"), [
    ([("has", "image")], "image"),
    ([("has", "link")], "link"),
    ([("is", "resolved")], "resolved"),
    ([("has", "link"), ("has", "attachment")], "attachment"),   # the rarer first
    ([("has", "reaction"), ("is", "resolved")], "resolved"),
    ([("has", "image"), ("channel", 3)], "image"),              # rare beats a channel
    ([("has", "image"), ("sender", 7)], "image"),
    ([("has", "link"), ("channel", 3)], None),                  # common does not
    ([("is", "resolved"), ("sender", 7)], None),
    ([("has", "image"), ("channel", 3), ("topic", "t")], None),  # a conversation wins
    ([("has", "image"), ("dm", (7,))], None),
    ([("has", "image"), ("dm-including", 7)], None),
    ([("has", "image", True)], None),                           # negated: not indexed
    ([("has", "link", True), ("channel", 3)], None),
    ([("is", "starred")], None),
    ([], None),
])
def test_the_source_rule(terms, expected):
    assert indexed_property(narrow(*terms)) == expected


def test_content_properties():
    assert content_properties("see https://example.com", "<p>see</p>") == {"link"}
    upload = "[a.png](/user_uploads/1/ab/a.png)"
    assert content_properties(upload, '<p><a href="/user_uploads/1/ab/a.png">a</a></p>') == {
        "link", "attachment", "image"}
    assert content_properties("[a.pdf](/user_uploads/1/ab/a.pdf)", "") == {"attachment"}
    assert content_properties("plain", "<p>plain</p>") == frozenset()
    assert is_resolved_topic("\u2714 done") and not is_resolved_topic("done \u2714")
