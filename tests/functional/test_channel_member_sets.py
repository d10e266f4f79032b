"""Each channel's active subscribers kept as one set (models/channels.ChannelMembers,
issue 41): every subscribe and unsubscribe changes it in its own transaction, and the
subscriber lists of POST /register and GET /users/me/subscriptions come from it (100
channels to a request) instead of a Query per channel; a channel whose set is not whole
is still listed right, from the index."""
from __future__ import annotations

import pytest

from chalicelib.actions.channels import add_subscribers as subscribe_module
from chalicelib.actions.channels.reads import subscribers as subscriber_reads
from chalicelib.models.channels import ChannelMembers, members_key
from tests.functional.edit_helpers import channel


def member_set(realm, stream_id: int) -> set[int]:
    found = ChannelMembers.get_or_none(members_key(realm.realm_id), stream_id)
    return {int(u) for u in (found.user_ids or set())} if found else set()


def listed(account, stream_id: int) -> list[int]:
    state = account.post("/register", {"fetch_event_types": ["subscription"],
                                       "include_subscribers": True}).json
    entries = [s for group in ("subscriptions", "unsubscribed", "never_subscribed")
               for s in state[group] if s["stream_id"] == stream_id]
    assert len(entries) == 1
    also = account.get("/users/me/subscriptions", {"include_subscribers": True}).json
    for entry in also["subscriptions"]:
        if entry["stream_id"] == stream_id:
            assert entry["subscribers"] == entries[0]["subscribers"]
    return entries[0]["subscribers"]


def unsubscribe(account, name: str, users) -> None:
    response = account.delete("/users/me/subscriptions", {
        "subscriptions": [name], "principals": [u.user_id for u in users]})
    assert response.ok, response.json


@pytest.fixture
def index_reads(monkeypatch) -> list[int]:
    """The channels whose subscribers were read from the index."""
    read: list[int] = []
    original = subscriber_reads.subscriber_ids

    def recording(realm_id: int, stream_id: int) -> list[int]:
        read.append(stream_id)
        return original(realm_id, stream_id)

    monkeypatch.setattr(subscriber_reads, "subscriber_ids", recording)
    return read


def test_the_set_follows_subscribes_and_unsubscribes(realm, index_reads):
    stream_id = channel(realm.owner, "sets", [realm.owner, realm.member])
    assert member_set(realm, stream_id) == {realm.owner.user_id, realm.member.user_id}
    channel(realm.owner, "sets", [realm.guest, realm.admin])
    unsubscribe(realm.owner, "sets", [realm.member, realm.admin])
    expected = sorted([realm.owner.user_id, realm.guest.user_id])
    assert member_set(realm, stream_id) == set(expected)
    # Lists come from the sets: no channel's list read from the index
    assert listed(realm.owner, stream_id) == expected
    assert listed(realm.member, stream_id) == expected    # as a former subscriber
    assert index_reads == []
    # Everyone leaves: no set is left (DynamoDB keeps no empty one)
    unsubscribe(realm.owner, "sets", [realm.owner, realm.guest])
    assert member_set(realm, stream_id) == set()
    assert listed(realm.owner, stream_id) == []


def test_a_channel_without_a_whole_set_is_listed_from_the_index(realm, index_reads):
    stream_id = channel(realm.owner, "older", [realm.owner, realm.member])
    # As a channel from before the sets: its set is missing, then holds a newcomer only
    ChannelMembers(members_key(realm.realm_id), stream_id).delete()
    assert listed(realm.owner, stream_id) == sorted([realm.owner.user_id,
                                                     realm.member.user_id])
    channel(realm.owner, "older", [realm.guest])
    assert member_set(realm, stream_id) == {realm.guest.user_id}
    everyone = sorted([realm.owner.user_id, realm.member.user_id, realm.guest.user_id])
    assert listed(realm.owner, stream_id) == everyone
    assert stream_id in index_reads
    # Once those from before have left, the set is whole again and is what is read
    unsubscribe(realm.owner, "older", [realm.owner, realm.member])
    index_reads.clear()
    assert listed(realm.guest, stream_id) == [realm.guest.user_id]
    assert index_reads == []


def test_a_set_stops_growing_at_its_cap(realm, index_reads, monkeypatch):
    monkeypatch.setattr(subscribe_module, "MAX_MEMBER_SET", 2)
    stream_id = channel(realm.owner, "capped", [realm.owner, realm.member])
    channel(realm.owner, "capped", [realm.guest])
    assert member_set(realm, stream_id) == {realm.owner.user_id, realm.member.user_id}
    assert listed(realm.owner, stream_id) == sorted([
        realm.owner.user_id, realm.member.user_id, realm.guest.user_id])
    assert stream_id in index_reads
