"""Narrow validation as the reference's parameter checks and query builder apply it, for
every caller of the one parser and evaluator (GET /messages, flags by narrow,
matches_narrow, event queues): channel and direct-message terms together, a blank
search, group-pm-with, a private channel the caller left; and the cost of a user operand,
which follows the distinct users it names (issue 43)."""
from __future__ import annotations

import json

import pytest

from tests.functional.aws_hooks import counting
from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import dm, narrow_ids


def term(operator, operand, negated=False):
    return {"operator": operator, "operand": operand, "negated": negated}


def every_caller(account, narrow: list) -> list:
    """The answers of the four places a narrow is given."""
    return [
        account.get("/messages", {"anchor": "newest", "num_before": 5, "num_after": 0,
                                  "narrow": narrow}),
        account.post("/messages/flags/narrow", {"anchor": "newest", "num_before": 5,
                                                "num_after": 0, "narrow": narrow,
                                                "op": "add", "flag": "starred"}),
        account.get("/messages/matches_narrow", {"msg_ids": [1], "narrow": narrow}),
        account.post("/register", {"event_types": ["message"], "narrow": narrow}),
    ]


@pytest.mark.parametrize("narrow", [
    [term("channel", "alpha"), term("dm", "{admin}")],
    [term("stream", "alpha"), ["pm-with", "{admin}"]],
    [term("topic", "plans"), term("is", "dm")],
    [term("channels", "public"), term("dm-including", "{admin}")],
    [term("channel", "alpha"), term("group-pm-with", "{admin}")],
    [term("is", "dm", negated=True), term("dm", "{admin}")],
], ids=["channel+dm", "stream+pm-with", "topic+is:dm", "channels+dm-including",
        "channel+group-pm-with", "not-is:dm+dm"])
def test_channel_and_direct_message_terms_together_are_a_bad_narrow(realm, narrow):
    channel(realm.owner, "alpha", [realm.owner, realm.member, realm.admin])
    narrow = json.loads(json.dumps(narrow).replace('"{admin}"', str(realm.admin.user_id)))
    for response in every_caller(realm.member, narrow):
        assert response.status == 400, response.json
        assert response.json["code"] == "BAD_NARROW", response.json
        assert "channel" in response.json["msg"] and "direct" in response.json["msg"]


def test_a_negated_side_does_not_conflict(realm):
    channel(realm.owner, "alpha", [realm.owner, realm.member])
    for narrow in ([term("channel", "alpha"), term("dm", [realm.admin.user_id], True)],
                   [term("dm", [realm.admin.user_id]), term("channel", "alpha", True)],
                   [term("channel", "alpha"), term("is", "dm", True)]):
        for response in every_caller(realm.member, narrow):
            assert response.ok, (narrow, response.json)


@pytest.mark.parametrize("operand", ["", "   ", "\t"])
def test_a_blank_search_is_refused(realm, operand):
    for response in every_caller(realm.member, [term("search", operand)]):
        assert response.status == 400, response.json
        assert response.json["code"] == "BAD_REQUEST" and "search" in response.json["msg"]


def test_group_pm_with_matches_group_conversations_only(realm, drain_events,
                                                        register_queue, fetch_events):
    # GIVEN the member's one-to-one conversation with the admin, and a group with both
    queue = register_queue(realm.member, event_types=json.dumps(["message"]),
                           narrow=json.dumps([term("group-pm-with", realm.admin.user_id)]))
    one_to_one = dm(realm.admin, [realm.member], "just us two")
    group = dm(realm.owner, [realm.member, realm.admin], "all three")
    other_group = dm(realm.owner, [realm.member, realm.guest], "not the admin")
    drain_events()
    # THEN group-pm-with the admin is the group only, by id and by email
    for operand in (realm.admin.user_id, realm.admin.email, realm.admin.email.upper()):
        assert narrow_ids(realm.member, [term("group-pm-with", operand)]) == [group]
        assert narrow_ids(realm.member, [["group-pm-with", str(operand)]]) == [group]
    # AND dm-including keeps both conversations with the admin
    assert narrow_ids(realm.member, [term("dm-including", realm.admin.user_id)]) == [
        one_to_one, group]
    # AND with oneself: every group conversation, no one-to-one
    assert narrow_ids(realm.member, [term("group-pm-with", realm.member.user_id)]) == [
        group, other_group]
    # AND a queue narrowed by it hears of the group message only
    events = fetch_events(realm.member, queue["queue_id"])
    assert [e["message"]["id"] for e in events if e["type"] == "message"] == [group]
    # AND matches_narrow agrees
    matched = realm.member.get("/messages/matches_narrow", {
        "msg_ids": [one_to_one, group],
        "narrow": [term("group-pm-with", realm.admin.user_id)]}).json["messages"]
    assert list(matched) == [str(group)]


def test_a_private_channel_left_keeps_the_messages_received(realm, drain_events):
    # GIVEN a private channel with protected history the member was in for one message
    channel(realm.owner, "vault", [realm.owner], invite_only=True,
            history_public_to_subscribers=False)
    before = send(realm.owner, "vault", "t", "before the member came")
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": json.dumps([{"name": "vault"}]),
        "principals": json.dumps([realm.member.user_id])}).ok
    received = send(realm.owner, "vault", "t", "the member got this")
    assert realm.member.delete("/users/me/subscriptions",
                               {"subscriptions": json.dumps(["vault"])}).ok
    after = send(realm.owner, "vault", "t", "after the member left")
    drain_events()
    narrow = [term("channel", "vault")]
    # THEN the channel is still a narrow for them, holding what they received
    assert narrow_ids(realm.member, narrow) == [received]
    assert narrow_ids(realm.member, [term("search", "member")]) == [received]
    assert realm.member.get(f"/messages/{received}").ok
    for missing in (before, after):
        assert realm.member.get(f"/messages/{missing}").status == 400
    # AND after rejoining, what came while away stays unreadable, the rest readable
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": json.dumps([{"name": "vault"}]),
        "principals": json.dumps([realm.member.user_id])}).ok
    again = send(realm.owner, "vault", "t", "back again")
    drain_events()
    assert narrow_ids(realm.member, narrow) == [received, again]
    # AND a private channel never joined is still unknown, by name and by id
    hidden = channel(realm.owner, "hidden", [realm.owner], invite_only=True)
    for operand in ("hidden", hidden):
        response = realm.member.get("/messages", {"anchor": "newest", "num_before": 1,
                                                  "num_after": 0,
                                                  "narrow": [term("channel", operand)]})
        assert response.json["code"] == "BAD_NARROW", response.json


def dynamodb_reads(account, narrow) -> tuple[int, list[int]]:
    with counting() as counter:
        response = account.get("/messages", {"anchor": "newest", "num_before": 10,
                                             "num_after": 0, "narrow": narrow})
    assert response.ok, response.json
    return counter.total("dynamodb"), [m["id"] for m in response.json["messages"]]


def test_many_spellings_of_one_user_cost_what_one_costs(realm, drain_events):
    # GIVEN the member's conversation with the owner
    direct = dm(realm.owner, [realm.member], "hello")
    drain_events()
    email = realm.owner.email
    letters = [i for i, c in enumerate(email) if c.isalpha()][:8]
    spellings = [" " * (n // 256) + "".join(
        c.upper() if i in letters and (n >> letters.index(i)) & 1 else c.lower()
        for i, c in enumerate(email)) for n in range(3000)]
    assert len(set(spellings)) == 3000   # 3,000 spellings of one address
    one = dynamodb_reads(realm.member, [term("dm", email)])
    assert one[1] == [direct]
    # THEN 3,000 spellings (73 KB as one string) are refused before any read: more
    # than an operand may name
    with counting() as counter:
        refused = realm.member.get("/messages", {
            "anchor": "newest", "num_before": 10, "num_after": 0,
            "narrow": [["pm-with", ",".join(spellings)]]})
    assert refused.status == 400 and "1000" in refused.json["msg"], refused.json
    assert counter.total("dynamodb") < one[0]
    # AND up to the limit, spellings as one string or as a list read what one reads
    assert dynamodb_reads(realm.member, [["pm-with", ",".join(spellings[:1000])]]) == one
    assert dynamodb_reads(realm.member, [term("dm", spellings[1000:2000])]) == one
    # AND each term naming the user, in any form, adds no read of its own
    assert dynamodb_reads(realm.member, [term("dm", email), term("sender", email.upper()),
                                         term("dm-including", realm.owner.user_id)]) == one


@pytest.mark.parametrize("operator", ["dm", "pm-with", "dm-including", "group-pm-with",
                                      "sender"])
def test_user_operands_are_bounded_before_any_read(realm, operator):
    emails = [f"user{n}@example.com" for n in range(1001)]
    # a parse error (read nothing of the narrow) is the baseline
    with counting() as baseline:
        refused = realm.member.get("/messages", {"anchor": "newest", "num_before": 1,
                                                 "num_after": 0,
                                                 "narrow": [term("nope", 1)]})
    assert refused.status == 400
    for operand in (",".join(emails), emails):
        with counting() as counter:
            response = realm.member.get("/messages", {
                "anchor": "newest", "num_before": 1, "num_after": 0,
                "narrow": [term(operator, operand)]})
        assert response.status == 400 and response.json["code"] == "BAD_REQUEST", \
            response.json
        assert counter.total("dynamodb") <= baseline.total("dynamodb")


def test_a_left_channel_reads_only_around_what_was_received(realm, drain_events,
                                                            monkeypatch):
    from chalicelib.actions.messages.reads import range as message_range

    # GIVEN a private channel the member left, busy since, and a cap of two candidates
    channel(realm.owner, "vault", [realm.owner, realm.member], invite_only=True)
    received = send(realm.owner, "vault", "t", "the member got this")
    assert realm.member.delete("/users/me/subscriptions",
                               {"subscriptions": json.dumps(["vault"])}).ok
    for n in range(5):
        send(realm.owner, "vault", "t", f"later {n}")
    drain_events()
    monkeypatch.setattr(message_range, "MAX_SKIPPED", 2)
    # THEN the newer messages are not examined one by one: what was received is found,
    # and both ends are reached
    response = realm.member.get("/messages", {"anchor": "newest", "num_before": 10,
                                              "num_after": 0,
                                              "narrow": [term("channel", "vault")]})
    assert [m["id"] for m in response.json["messages"]] == [received]
    assert (response.json["found_oldest"], response.json["found_newest"]) == (True, True)
    after = realm.member.get("/messages", {"anchor": str(received + 1), "num_before": 0,
                                           "num_after": 10,
                                           "narrow": [term("channel", "vault")]})
    assert after.json["messages"] == [] and after.json["found_newest"] is True
