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


@pytest.mark.parametrize("narrow, fragment", [
    ([term("is", "muted")], "not supported for event queues"),
    ([term("is", "followed")], "not supported for event queues"),
    ([term("channels", "public")], "not supported for event queues"),
    ([term("search", "words")], "not supported for event queues"),
    ([term("channel", "nowhere")], "unknown channel"),
    ([term("sender", "nobody@example.com")], "unknown user"),
    ([term("colour", "red")], "unknown operator"),
])
def test_queue_narrows_that_are_refused(realm, narrow, fragment):
    response = realm.member.post("/register", {"event_types": ["message"], "narrow": narrow})
    assert response.status == 400, response.json
    assert response.json["code"] == "BAD_NARROW" and fragment in response.json["msg"]


def test_a_private_channel_cannot_be_watched_by_name(realm):
    channel(realm.owner, "vault", [realm.owner], invite_only=True)
    response = realm.member.post("/register", {"narrow": [["channel", "vault"]]})
    assert (response.status, response.json["msg"]) == (
        400, "Invalid narrow operator: unknown channel")
