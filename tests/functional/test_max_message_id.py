"""max_message_id in GET /users/me and POST /register is the newest message the caller
received, as the reference gives it (issue 39, item 10): messages in channels and
conversations the caller is not part of do not move it."""
from __future__ import annotations

import json

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import dm


def max_message_ids(account) -> tuple[int, int]:
    me = account.get("/users/me")
    registered = account.post("/register", {"fetch_event_types": json.dumps(["message"])})
    assert me.ok and registered.ok, (me.json, registered.json)
    return me.json["max_message_id"], registered.json["max_message_id"]


def test_max_message_id_is_the_newest_message_received(realm, drain_events):
    channel(realm.owner, "feed", [realm.owner, realm.member])
    channel(realm.owner, "vault", [realm.owner], invite_only=True)
    seen = send(realm.owner, "feed", "t", "for the member")
    drain_events()
    assert max_message_ids(realm.member) == (seen, seen)
    # WHEN others talk where the member is not: a private channel, a conversation
    send(realm.owner, "vault", "t", "secret")
    dm(realm.owner, [realm.admin], "between us")
    drain_events()
    # THEN the member's max_message_id does not move; the owner's does
    assert max_message_ids(realm.member) == (seen, seen)
    owner_newest = max_message_ids(realm.owner)
    assert owner_newest[0] == owner_newest[1] > seen
    # AND a direct message to the member moves theirs
    direct = dm(realm.owner, [realm.member], "to you")
    drain_events()
    assert max_message_ids(realm.member) == (direct, direct)


def test_a_protected_history_channel_counts_from_joining(realm, drain_events):
    # GIVEN a channel whose history new subscribers cannot read, with an old message
    channel(realm.owner, "inner", [realm.owner], invite_only=True,
            history_public_to_subscribers=False)
    channel(realm.owner, "feed", [realm.owner, realm.guest])
    seen = send(realm.owner, "feed", "t", "hello")
    send(realm.owner, "inner", "t", "before the guest came")
    assert realm.owner.post("/users/me/subscriptions", {
        "subscriptions": json.dumps([{"name": "inner"}]),
        "principals": json.dumps([realm.guest.user_id]),
        "send_new_subscription_messages": False}).ok
    drain_events()
    # THEN the message from before joining is not the guest's newest
    assert max_message_ids(realm.guest) == (seen, seen)
    after = send(realm.owner, "inner", "t", "after")
    drain_events()
    assert max_message_ids(realm.guest) == (after, after)
