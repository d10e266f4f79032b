"""A bounded member (issue 47, finding 6): every bulk write a member can start has a
documented maximum (docs/rate-limits.md), is refused whole when it would pass it, and a
request that fails part way is finished by sending it again."""
from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from chalicelib.actions.channels import principals
from chalicelib.models.channels import Stream
from tests.functional import test_rate_limits
from tests.functional.aws_hooks import error_response, hooked
from tests.functional.conftest import sent_emails
from tests.functional.invite_helpers import invite, listed

limits = test_rate_limits.limits   # the fixture: rules over the test defaults, a clock


def subscribe(account, names: list[str], **params: Any):
    return account.post("/users/me/subscriptions", {
        "subscriptions": [{"name": n} for n in names], **params})


def channel_names(realm) -> set[str]:
    return {s.name for s in Stream.query(realm.realm_id)}


def my_channels(account) -> set[str]:
    answer = account.get("/users/me/subscriptions")
    assert answer.ok, answer.json
    return {s["name"] for s in answer.json["subscriptions"]}


def failing_transaction(number: int):
    """A hook that fails the `number`th TransactWriteItems from now (as AWS fails one
    whose retries gave up), and no other."""
    calls = itertools.count(1)

    def hook(service: str, operation: str, _params: dict[str, Any]) -> Any:
        if service == "dynamodb" and operation == "TransactWriteItems" and \
                next(calls) == number:
            return error_response(service, "InternalServerError", "try again", 500)
        return None
    return hook


def test_a_member_cannot_create_a_thousand_channels_at_once(realm):
    before = channel_names(realm)
    answer = subscribe(realm.member, [f"bulk {n}" for n in range(101)])
    assert answer.status == 400, answer.json
    assert answer.json["msg"] == "Too many channels: at most 100 at a time."
    assert channel_names(realm) == before
    assert subscribe(realm.member, [f"bulk {n}" for n in range(100)]).ok
    assert len(channel_names(realm) - before) == 100


def test_creating_channels_is_limited_per_member(realm, limits):
    limits("channels_by_user=5/3600")
    before = channel_names(realm)
    assert subscribe(realm.member, ["one", "two", "three"]).ok
    # WHEN the member asks for more new channels than its allowance has left
    refused = subscribe(realm.member, ["four", "five", "six"])
    # THEN none is created, and the answer says when to try again
    assert refused.status == 429 and refused.json["code"] == "RATE_LIMIT_HIT", refused.json
    assert refused.headers["Retry-After"] == str(refused.json["retry-after"])
    assert channel_names(realm) - before == {"one", "two", "three"}
    # AND existing channels may still be joined, and POST /channels/create counts too
    assert subscribe(realm.admin, ["one", "two", "three"]).ok
    assert realm.member.post("/channels/create", {"name": "four", "subscribers": []}).ok
    assert realm.member.post("/channels/create", {
        "name": "five", "subscribers": []}).ok
    assert realm.member.post("/channels/create", {
        "name": "six", "subscribers": []}).status == 429
    # AND another member has its own allowance
    assert subscribe(realm.moderator, ["seven"]).ok
    limits.advance(3600)
    assert subscribe(realm.member, ["six"]).ok


def test_a_refused_request_creates_nothing(realm):
    secret = realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "secret"}], "invite_only": True})
    assert secret.ok
    before = channel_names(realm)
    # A channel the member may not join, after two new ones
    answer = subscribe(realm.member, ["new a", "new b", "secret"])
    assert answer.status == 400 and answer.json["msg"] == \
        "Channel secret does not exist, or you cannot see it."
    # A description too long, after a new one
    long = realm.member.post("/users/me/subscriptions", {"subscriptions": [
        {"name": "new c"}, {"name": "new d", "description": "x" * 2000}]})
    assert long.status == 400 and "too long" in long.json["msg"]
    # A guest among new channels' would-be creators, subscribing others
    guest = subscribe(realm.guest, ["new e"])
    assert guest.status == 400
    assert channel_names(realm) == before
    assert my_channels(realm.member) & {"new a", "new b", "new c"} == set()


def test_too_many_subscriptions_at_once_are_refused(realm, monkeypatch):
    monkeypatch.setattr(principals, "MAX_SUBSCRIPTIONS_PER_REQUEST", 10)
    before = channel_names(realm)
    people = [realm.member.user_id, realm.admin.user_id, realm.moderator.user_id,
              realm.owner.user_id]
    answer = subscribe(realm.admin, ["x", "y", "z"], principals=people)
    assert answer.status == 400 and answer.json["msg"].startswith(
        "Too many subscriptions: at most 10"), answer.json
    assert channel_names(realm) == before
    assert subscribe(realm.admin, ["x", "y"], principals=people).ok


@pytest.mark.parametrize("invite_only", [False, True])
def test_a_request_that_failed_part_way_is_finished_by_sending_it_again(realm, invite_only):
    names = [f"{'private' if invite_only else 'public'} {n}" for n in range(6)]
    # WHEN the fourth of the request's writes fails (AWS gave up on it)
    with hooked(failing_transaction(4)):
        failed = subscribe(realm.member, names, invite_only=json.dumps(invite_only))
    assert failed.status == 503, failed.json
    # THEN what was created is complete: every channel that exists has its subscriber
    made = channel_names(realm) & set(names)
    assert 0 < len(made) < len(names)
    assert my_channels(realm.member) & set(names) == made
    # AND sending the same request again finishes it, creating nothing twice
    again = subscribe(realm.member, names, invite_only=json.dumps(invite_only))
    assert again.ok, again.json
    assert sorted(again.json["subscribed"][str(realm.member.user_id)]) == sorted(
        set(names) - made)
    assert sorted(again.json["already_subscribed"][str(realm.member.user_id)]) == sorted(
        made)
    assert my_channels(realm.member) >= set(names)
    assert sorted(s.name for s in Stream.query(realm.realm_id) if s.name in names) == \
        sorted(names)


def test_invitations_are_at_most_a_hundred_at_a_time(realm, monkeypatch):
    monkeypatch.setenv("INVITES_DAILY_LIMIT", "1000")
    addresses = [f"person{n}@elsewhere.example.com" for n in range(101)]
    answer = invite(realm.admin, ", ".join(addresses))
    assert answer.status == 400 and answer.json["msg"].startswith(
        "Too many addresses: at most 100 at a time."), answer.json
    assert listed(realm.admin) == [] and sent_emails(addresses[0]) == []
    assert invite(realm.admin, ", ".join(addresses[:100])).ok


def test_invitations_that_failed_part_way_say_who_was_invited(realm, monkeypatch):
    monkeypatch.setenv("INVITES_DAILY_LIMIT", "1000")
    addresses = [f"friend{n}@elsewhere.example.com" for n in range(60)]
    # WHEN the second of the request's writes fails (48 invitations fit in one)
    with hooked(failing_transaction(2)):
        answer = invite(realm.admin, ", ".join(addresses))
    # THEN the first ones are invited and emailed, and the answer names the others
    assert answer.status == 400 and answer.json["code"] == "INVITATION_FAILED", answer.json
    assert answer.json["sent_invitations"] is True
    missed = [entry[0] for entry in answer.json["errors"]]
    invited = [a for a in addresses if a not in missed]
    assert missed and invited and len(missed) + len(invited) == len(addresses)
    assert {i["email"] for i in listed(realm.admin)} == set(invited)
    assert all(len(sent_emails(a)) == 1 for a in invited[:3])
    assert sent_emails(missed[0]) == []
    # AND inviting those again completes the request
    assert invite(realm.admin, ", ".join(missed)).ok
    assert {i["email"] for i in listed(realm.admin)} == set(addresses)
