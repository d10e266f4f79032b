"""GET /messages around its anchors: newest, oldest, first_unread, date, an id with
include_anchor; message_ids alone; the limits; raw Markdown; client_gravatar; and the
found_* flags on each path."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.functional.edit_helpers import channel, make_old, send


@pytest.fixture
def six(realm, drain_events) -> list[int]:
    """Six messages of the owner in a channel the member reads."""
    channel(realm.owner, "feed", [realm.owner, realm.member])
    ids = [send(realm.owner, "feed", "t", f"message **{n}**") for n in range(6)]
    drain_events()
    return ids


def get(account, **params):
    params.setdefault("narrow", [{"operator": "channel", "operand": "feed"}])
    response = account.get("/messages", params)
    assert response.ok, response.json
    body = response.json
    return ([m["id"] for m in body["messages"]], body.get("anchor"),
            (body["found_anchor"], body["found_oldest"], body["found_newest"]))


LARGEST = 10**16   # the anchor of `newest`: past every message id


def test_newest_and_oldest(realm, six):
    # `newest` stands past the last message: exactly num_before messages, no anchor found
    assert get(realm.member, anchor="newest", num_before=2, num_after=0) == (
        six[4:], LARGEST, (False, False, True))
    assert get(realm.member, anchor="newest", num_before=6, num_after=0) == (
        six, LARGEST, (False, False, True))
    assert get(realm.member, anchor="newest", num_before=7, num_after=3) == (
        six, LARGEST, (False, True, True))
    assert get(realm.member, anchor="oldest", num_before=0, num_after=2) == (
        six[:2], 0, (False, True, False))
    assert get(realm.member, anchor="oldest", num_before=3, num_after=7) == (
        six, 0, (False, True, True))


def test_an_id_anchor_with_and_without_itself(realm, six):
    assert get(realm.member, anchor=str(six[2]), num_before=1, num_after=1) == (
        six[1:4], six[2], (True, False, False))
    assert get(realm.member, anchor=str(six[2]), num_before=2, num_after=3) == (
        six, six[2], (True, False, False))
    assert get(realm.member, anchor=str(six[2]), num_before=3, num_after=4) == (
        six, six[2], (True, True, True))
    assert get(realm.member, anchor=str(six[2]), num_before=2, num_after=0,
               include_anchor=False) == (six[:2], six[2], (False, False, False))
    assert get(realm.member, anchor=str(six[2]), num_before=3, num_after=0,
               include_anchor=False) == (six[:2], six[2], (False, True, False))
    assert get(realm.member, anchor=str(six[2]), num_before=0, num_after=1,
               include_anchor=False) == ([six[3]], six[2], (False, False, False))
    # an anchor no message of the narrow has: the nearest on each side
    assert get(realm.member, anchor="0", num_before=3, num_after=1) == (
        six[:1], 0, (False, True, False))
    assert get(realm.member, anchor=str(10**16), num_before=1, num_after=5) == (
        six[5:], LARGEST, (False, False, True))
    # the anchor left out on both sides at once is refused
    response = realm.member.get("/messages", {
        "anchor": six[2], "num_before": 1, "num_after": 1, "include_anchor": "false"})
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST", response.json


def test_first_unread(realm, six):
    # GIVEN the member read the first three
    assert realm.member.post("/messages/flags", {"messages": six[:3], "op": "add",
                                                 "flag": "read"}).ok
    assert get(realm.member, anchor="first_unread", num_before=1, num_after=1) == (
        six[2:5], six[3], (True, False, False))
    # the deprecated form says the same, whatever anchor comes beside it
    for anchor in (None, "0", str(LARGEST)):
        assert get(realm.member, use_first_unread_anchor="true", num_before=1, num_after=1,
                   **({"anchor": anchor} if anchor else {}))[:2] == (six[2:5], six[3])
    # WHEN all are read THEN first_unread stands past the newest message, as `newest`
    assert realm.member.post("/messages/flags", {"messages": six, "op": "add",
                                                 "flag": "read"}).ok
    assert get(realm.member, anchor="first_unread", num_before=1, num_after=1) == (
        six[5:], LARGEST, (False, False, True))
    # AND so in the terminal client's first request (anchor 10**16 with the legacy flag)
    assert get(realm.member, anchor=str(LARGEST), use_first_unread_anchor="true",
               num_before=30, num_after=10) == (six, LARGEST, (False, True, True))


def test_date_anchor(realm, six):
    # GIVEN the first four were sent two days ago, the others now
    make_old(realm.realm_id, six[:4], 2 * 86400)
    yesterday = datetime.fromtimestamp(datetime.now(UTC).timestamp() - 86400, UTC)
    assert get(realm.member, anchor="date", anchor_date=yesterday.isoformat(), num_before=1,
               num_after=1) == (six[3:6], six[4], (True, False, False))
    # a date after every message: the newest
    tomorrow = datetime.fromtimestamp(datetime.now(UTC).timestamp() + 86400, UTC)
    assert get(realm.member, anchor="date", anchor_date=tomorrow.isoformat(),
               num_before=1, num_after=0)[:2] == (six[5:], LARGEST)
    for params, fragment in (({"anchor": "date"}, "anchor_date"),
                             ({"anchor": "date", "anchor_date": "someday"}, "anchor_date")):
        response = realm.member.get("/messages", {"num_before": 1, "num_after": 0, **params})
        assert response.status == 400 and fragment in response.json["msg"], response.json


def test_message_ids_alone(realm, six, drain_events):
    channel(realm.owner, "vault", [realm.owner], invite_only=True)
    secret = send(realm.owner, "vault", "s", "secret")
    drain_events()
    response = realm.member.get("/messages", {"message_ids": [six[4], six[1], secret,
                                                              99999999]})
    assert response.ok, response.json
    assert [m["id"] for m in response.json["messages"]] == [six[1], six[4]]
    assert "anchor" not in response.json
    assert (response.json["found_anchor"], response.json["found_oldest"],
            response.json["found_newest"]) == (False, False, False)
    # with a narrow, the listed messages it holds
    narrowed = realm.member.get("/messages", {"message_ids": six, "narrow": [
        {"operator": "search", "operand": "message 3"}]})
    assert [m["id"] for m in narrowed.json["messages"]] == [six[3]]
    # the range parameters do not go with it
    both = realm.member.get("/messages", {"message_ids": six, "anchor": "newest"})
    assert both.status == 400 and "combination" in both.json["msg"]


@pytest.mark.parametrize("params, code, fragment", [
    ({"anchor": "newest", "num_after": 0}, "REQUEST_VARIABLE_MISSING", "num_before"),
    ({"anchor": "newest", "num_before": 0}, "REQUEST_VARIABLE_MISSING", "num_after"),
    ({"anchor": "newest", "num_before": 3000, "num_after": 2001}, "BAD_REQUEST",
     "At most 5000"),
    ({"anchor": "newest", "num_before": -1, "num_after": 0}, "BAD_REQUEST", "negative"),
    ({"anchor": "sideways", "num_before": 1, "num_after": 0}, "BAD_REQUEST", "anchor"),
])
def test_range_limits(realm, params, code, fragment):
    response = realm.member.get("/messages", params)
    assert response.status == 400, response.json
    assert response.json["code"] == code and fragment in response.json["msg"], response.json


def test_the_largest_range_is_accepted(realm, six):
    assert get(realm.member, anchor="newest", num_before=2500, num_after=2500)[0] == six


def test_raw_markdown_and_client_gravatar(realm, six):
    params = {"anchor": "newest", "num_before": 1, "num_after": 0,
              "narrow": [{"operator": "channel", "operand": "feed"}]}
    [rendered] = realm.member.get("/messages", params).json["messages"]
    assert rendered["content"] == "<p>message <strong>5</strong></p>"
    assert rendered["avatar_url"] is None   # client_gravatar defaults to true
    [raw] = realm.member.get("/messages", {**params, "apply_markdown": False,
                                           "client_gravatar": False}).json["messages"]
    assert (raw["content"], raw["content_type"]) == ("message **5**", "text/x-markdown")
    assert raw["avatar_url"].startswith("https://secure.gravatar.com/avatar/")


def test_found_flags_when_the_narrow_filters_most_candidates(realm, six, drain_events):
    # GIVEN the member's one message among the owner's
    mine = send(realm.member, "feed", "t", "mine")
    for _ in range(3):
        send(realm.owner, "feed", "t", "more")
    drain_events()
    narrow = [{"operator": "channel", "operand": "feed"},
              {"operator": "sender", "operand": "me"}]
    assert get(realm.member, anchor="newest", num_before=1, num_after=0, narrow=narrow) == (
        [mine], LARGEST, (False, False, True))
    assert get(realm.member, anchor="newest", num_before=2, num_after=0, narrow=narrow) == (
        [mine], LARGEST, (False, True, True))
    assert get(realm.member, anchor=str(six[0]), num_before=5, num_after=5,
               narrow=narrow) == ([mine], six[0], (False, True, True))


def test_a_side_stopped_by_the_examination_cap_does_not_claim_the_end(realm, six,
                                                                      monkeypatch):
    from chalicelib.actions.messages.reads import range as message_range

    # GIVEN a narrow that only the realm's messages answer, and a cap of two candidates
    monkeypatch.setattr(message_range, "MAX_SKIPPED", 2)
    narrow = [{"operator": "is", "operand": "followed"}]   # no topic is followed
    # THEN a side that stops there does not claim to have reached the end
    assert get(realm.member, anchor="newest", num_before=1, num_after=0,
               narrow=narrow) == ([], LARGEST, (False, False, True))
    assert get(realm.member, anchor="oldest", num_before=0, num_after=1,
               narrow=narrow) == ([], 0, (False, True, False))
    # AND without the cap the same narrow reaches both ends
    monkeypatch.setattr(message_range, "MAX_SKIPPED", 5000)
    assert get(realm.member, anchor="newest", num_before=1, num_after=0,
               narrow=narrow) == ([], LARGEST, (False, True, True))


def test_a_sender_narrow_reads_only_that_senders_messages(realm, six, monkeypatch,
                                                         drain_events):
    from chalicelib.actions.messages.reads import range as message_range

    # GIVEN the member's one message after the owner's six, and a cap of two candidates
    mine = send(realm.member, "feed", "t", "mine")
    drain_events()
    monkeypatch.setattr(message_range, "MAX_SKIPPED", 2)
    # THEN the sender index lists just it: both ends are reached within the cap
    for operand in ("me", realm.member.user_id, realm.member.email):
        narrow = [{"operator": "sender", "operand": operand}]
        assert get(realm.member, anchor="newest", num_before=10, num_after=0,
                   narrow=narrow) == ([mine], LARGEST, (False, True, True))
    owner = [{"operator": "sender", "operand": realm.owner.user_id}]
    assert get(realm.member, anchor=str(six[2]), num_before=1, num_after=1,
               narrow=owner) == (six[1:4], six[2], (True, False, False))


def test_reindex_keys_messages_sent_before_the_sender_index(realm, six):
    from chalicelib.actions.workflows.reindex import do_reindex_realm
    from chalicelib.models.messages import Message

    # GIVEN messages stored without a sender key, as before the index existed
    for message_id in six[:3]:
        Message(realm.realm_id, message_id).update(actions=[Message.sender_key.remove()])
    narrow = [{"operator": "sender", "operand": realm.owner.user_id}]
    assert get(realm.member, anchor="newest", num_before=10, num_after=0,
               narrow=narrow)[0] == six[3:]
    # WHEN the realm is reindexed THEN the sender narrow finds them again
    assert do_reindex_realm(realm.realm_id)["sender_keys_set"] == 3
    assert get(realm.member, anchor="newest", num_before=10, num_after=0,
               narrow=narrow)[0] == six


def reference_range(ids: list[int], anchor: int, include_anchor: bool, num_before: int,
                    num_after: int) -> tuple[list[int], bool, bool, bool]:
    """What the reference answers over the narrow's message ids `ids`: its range query
    (rows at or below / at or above the anchor, with its limits) and the cut and flags
    that follow it, written over a plain list."""
    at_left, at_right = anchor == 0, anchor >= LARGEST
    if at_right:
        num_after = 0
    need_before, need_after = not at_left and num_before > 0, not at_right and num_after > 0
    rows: set[int] = set()
    if need_before and need_after:
        rows |= set([i for i in ids if i <= anchor - 1][-num_before:])
        rows |= set([i for i in ids if i >= anchor][:num_after + 1])
    elif need_before:
        below = ids if at_right else [i for i in ids if i <= anchor - (not include_anchor)]
        rows |= set(below[-(num_before + (0 if at_right else int(include_anchor))):])
    elif need_after:
        above = ids if at_left else [i for i in ids if i >= anchor + (not include_anchor)]
        limit = num_after + int(include_anchor)
        rows |= set(above[:limit])
    else:
        rows |= {i for i in ids if i == anchor}
    ordered = sorted(rows)
    if at_right:
        before, anchored, after = ordered, [], []
    else:
        before = [i for i in ordered if i < anchor]
        anchored = [i for i in ordered if i == anchor]
        after = [i for i in ordered if i > anchor]
    if num_before:
        before = before[-num_before:]
    if num_after:
        after = after[:num_after]
    return (before + anchored + after, len(anchored) == 1,
            at_left or len(before) < num_before, at_right or len(after) < num_after)


def test_every_anchor_and_count_answers_as_the_reference(realm, six, drain_events):
    # GIVEN a gap in the narrow's ids (a message of another channel) and the member
    # having read the first two
    channel(realm.owner, "elsewhere", [realm.owner])
    gap = send(realm.owner, "elsewhere", "t", "not in the narrow")
    later = [send(realm.owner, "feed", "t", f"later {n}") for n in range(2)]
    drain_events()
    ids = six + later
    assert realm.member.post("/messages/flags", {"messages": six[:2], "op": "add",
                                                 "flag": "read"}).ok
    anchors: dict[str, int] = {
        "oldest": 0, "newest": LARGEST, "-5": 0, str(LARGEST * 10): LARGEST,
        str(six[0]): six[0], str(six[3]): six[3], str(gap): gap, str(later[-1]): later[-1],
        str(later[-1] + 50): later[-1] + 50}
    cases = 0
    for anchor, anchor_id in anchors.items():
        for num_before in (0, 1, 3, 9):
            for num_after in (0, 1, 3, 9):
                for include_anchor in (True, False):
                    response = realm.member.get("/messages", {
                        "anchor": anchor, "num_before": num_before, "num_after": num_after,
                        "include_anchor": str(include_anchor).lower(),
                        "narrow": [{"operator": "channel", "operand": "feed"}]})
                    if not include_anchor and num_before and num_after:
                        assert response.status == 400, (anchor, num_before, num_after)
                        continue
                    assert response.ok, response.json
                    body = response.json
                    answer = ([m["id"] for m in body["messages"]], body["found_anchor"],
                              body["found_oldest"], body["found_newest"])
                    assert (answer, body["anchor"]) == (reference_range(
                        ids, anchor_id, include_anchor, num_before, num_after), anchor_id), (
                        anchor, num_before, num_after, include_anchor)
                    cases += 1
    assert cases > 200
    # first_unread is the first unread message, and past the newest once all are read
    for reader, first in ((realm.member, six[2]), (realm.owner, LARGEST)):
        body = reader.get("/messages", {"anchor": "first_unread", "num_before": 2,
                                        "num_after": 2, "narrow": [
                                            {"operator": "channel", "operand": "feed"}]}).json
        assert body["anchor"] == first
        assert [m["id"] for m in body["messages"]] == reference_range(ids, first, True, 2, 2)[0]
