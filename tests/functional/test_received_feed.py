"""A narrow reads the messages its caller received (issue 48), as the reference answers
from the caller's own rows: the combined feed and every operator without a channel leave
out a public channel the caller is not in; a narrow that names a channel whose history
the caller may read (or `channels:public`) reads that history, its messages flagged
`historical`; matches_narrow, flags by narrow and the unread counts keep to the same
messages; a message the caller stars or reacts to from a channel's history becomes
theirs; a subscription's messages are those sent while it lasted; a new member starts
with their channels' recent history."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.functional.conftest import Account
from tests.functional.edit_helpers import channel, make_old, send
from tests.functional.invite_helpers import emailed_key, invite, register
from tests.functional.read_state_helpers import dm, narrow_ids, unread_ids


def term(operator, operand, negated=False):
    return {"operator": operator, "operand": operand, "negated": negated}


def page(account, narrow, anchor="newest", num_before=50, num_after=0):
    response = account.get("/messages", {"anchor": anchor, "num_before": num_before,
                                         "num_after": num_after, "narrow": narrow})
    assert response.ok, response.json
    return response.json


def flags_by_id(body) -> dict[int, list[str]]:
    return {m["id"]: m["flags"] for m in body["messages"]}


@dataclass
class World:
    side: list[int]       # a public channel the member and the guest are not in
    general: list[int]    # a channel everyone is in
    direct: int           # the owner's direct message to the member
    to_guest: int         # the owner's direct message to the guest


@pytest.fixture
def world(realm, drain_events) -> World:
    # The reproduction: as the owner, a channel the member is not in with three
    # messages, and one message in a channel everyone reads.
    channel(realm.owner, "general", [realm.owner, realm.member, realm.guest])
    channel(realm.owner, "side", [realm.owner])
    side = [send(realm.owner, "side", "plans", f"side words https://example.com/{n} "
                                                f"@**{realm.member.full_name}**")
            for n in range(3)]
    general = [send(realm.owner, "general", "plans", "general words https://example.com "
                    f"@**{realm.member.full_name}** @**{realm.guest.full_name}**")]
    direct = dm(realm.owner, [realm.member], "direct words")
    to_guest = dm(realm.owner, [realm.guest], "direct words for the guest")
    drain_events()
    return World(side, general, direct, to_guest)


# ---- the combined feed and each operator family without a channel --------------------

def test_the_combined_feed_lists_only_received_messages(realm, world):
    body = page(realm.member, [])
    assert [m["id"] for m in body["messages"]] == [*world.general, world.direct]
    assert body["found_oldest"] and body["found_newest"]
    assert all("historical" not in m["flags"] for m in body["messages"])
    assert narrow_ids(realm.guest, []) == [*world.general, world.to_guest]
    # and the owner, who is in both, gets everything it received
    assert narrow_ids(realm.owner, []) == [*world.side, *world.general, world.direct,
                                           world.to_guest]
    # the first unread anchor and an id anchor inside the side channel's messages
    assert narrow_ids(realm.member, [], anchor="first_unread", num_after=50) == [
        *world.general, world.direct]
    assert narrow_ids(realm.member, [], anchor=str(world.side[1]), num_before=5,
                      num_after=5) == [*world.general, world.direct]


@pytest.mark.parametrize("narrow", [
    [term("search", "words")],
    [term("sender", "{owner}")],
    [term("has", "link")],
    [term("topic", "plans")],
    [term("is", "mentioned")],
    [term("channel", "general", negated=True)],
    [term("is", "dm", negated=True)],
    [term("search", "words"), term("has", "link")],
    [term("sender", "{owner}"), term("topic", "plans")],
], ids=["search", "sender", "has:link", "topic", "is:mentioned", "-channel", "-is:dm",
        "search+has", "sender+topic"])
def test_operators_without_a_channel_read_received_messages(realm, world, narrow):
    narrow = [{**t, "operand": realm.owner.email} if t["operand"] == "{owner}" else t
              for t in narrow]
    for account in (realm.member, realm.guest):
        found = narrow_ids(account, narrow)
        assert found and not set(found) & set(world.side), (account.full_name, narrow)


def test_direct_message_operators(realm, world):
    for narrow in ([term("is", "dm")], [term("dm", [realm.owner.user_id])],
                   [term("dm-including", realm.owner.user_id)]):
        assert narrow_ids(realm.member, narrow) == [world.direct], narrow


def test_id_near_and_with(realm, world):
    hidden = world.side[1]
    # id alone reads received messages only; with the channel, its history
    assert narrow_ids(realm.member, [term("id", hidden)]) == []
    body = page(realm.member, [term("channel", "side"), term("id", hidden)])
    assert flags_by_id(body) == {hidden: ["historical", "read"]}
    # near is a position: the combined feed around it still leaves the channel out
    assert narrow_ids(realm.member, [term("near", hidden)], anchor=str(hidden),
                      num_before=5, num_after=5) == [*world.general, world.direct]
    # with names the message's conversation: a channel the member may read the history of
    body = page(realm.member, [term("with", hidden)])
    assert flags_by_id(body) == {i: ["historical", "read"] for i in world.side}


def test_a_channel_whose_history_the_caller_may_read(realm, world):
    # the channel's history, flagged historical, and the rest as received
    body = page(realm.member, [term("channel", "side")])
    assert flags_by_id(body) == {i: ["historical", "read"] for i in world.side}
    assert body["found_oldest"] and body["found_newest"]
    body = page(realm.member, [term("channels", "public")])
    assert [m["id"] for m in body["messages"]] == [*world.side, *world.general]
    assert [("historical" in m["flags"]) for m in body["messages"]] == [True] * 3 + [False]
    for narrow in ([term("channel", "side"), term("search", "side")],
                   [term("channel", "side"), term("topic", "plans")],
                   [term("channel", "side"), term("has", "link")],
                   [term("channel", "side"), term("is", "resolved", negated=True)]):
        assert narrow_ids(realm.member, narrow) == world.side, narrow
    # an is: term about the caller's own state reads received messages only
    assert narrow_ids(realm.member, [term("channel", "side"), term("is", "unread",
                                                                   negated=True)]) == []
    # a guest may not read the channel at all, nor the public channels' history
    refused = realm.guest.get("/messages", {"anchor": "newest", "num_before": 5,
                                            "num_after": 0,
                                            "narrow": [term("channel", "side")]})
    assert (refused.status, refused.json["code"]) == (400, "BAD_NARROW")
    assert narrow_ids(realm.guest, [term("channels", "public")]) == world.general


def test_matches_narrow_and_flags_by_narrow_keep_to_received_messages(realm, world):
    every = [*world.side, *world.general, world.direct, world.to_guest]
    matched = realm.member.get("/messages/matches_narrow", {
        "msg_ids": every, "narrow": [term("search", "words")]})
    assert sorted(int(i) for i in matched.json["messages"]) == [*world.general,
                                                                world.direct]
    # as the reference: matches_narrow reads the caller's own messages even for a channel
    matched = realm.member.get("/messages/matches_narrow", {
        "msg_ids": every, "narrow": [term("channel", "side")]})
    assert matched.json["messages"] == {}
    starred = realm.member.post("/messages/flags/narrow", {
        "anchor": "oldest", "num_before": 0, "num_after": 100, "narrow": [],
        "op": "add", "flag": "starred"})
    assert starred.json["processed_count"] == 2, starred.json
    listed = realm.member.get("/messages", {"message_ids": every})
    assert [m["id"] for m in listed.json["messages"]] == [*world.general, world.direct]


def test_starring_a_message_of_a_channels_history_makes_it_received(realm, world):
    hidden = world.side[0]
    assert realm.member.post("/messages/flags", {"messages": [hidden], "op": "add",
                                                 "flag": "starred"}).ok
    assert narrow_ids(realm.member, [term("is", "starred")]) == [hidden]
    body = page(realm.member, [])
    assert [m["id"] for m in body["messages"]] == [hidden, *world.general, world.direct]
    assert flags_by_id(body)[hidden] == ["historical", "read", "starred"]
    # unstarring keeps it the member's, as the reference keeps its historical row
    assert realm.member.post("/messages/flags", {"messages": [hidden], "op": "remove",
                                                 "flag": "starred"}).ok
    assert flags_by_id(page(realm.member, []))[hidden] == ["historical", "read"]
    # a reaction does the same
    reacted = world.side[2]
    assert realm.member.post(f"/messages/{reacted}/reactions",
                             {"emoji_name": "octopus"}).ok
    assert narrow_ids(realm.member, [term("search", "side")]) == [hidden, reacted]


def test_unread_counts_and_marking_unread_follow_the_same_messages(realm, world,
                                                                   drain_events):
    # the side channel's mention never reached the member: nothing unread, nothing counted
    assert unread_ids(realm.member) == [*world.general, world.direct]
    # joining later receives only what is sent from then on
    channel(realm.member, "side")
    later = send(realm.owner, "side", "plans", "after joining")
    drain_events()
    assert unread_ids(realm.member) == [*world.general, world.direct, later]
    assert narrow_ids(realm.member, []) == [*world.general, world.direct, later]
    # marking a message of the history unread makes it the member's, unread
    assert realm.member.post("/messages/flags", {"messages": [world.side[0]],
                                                 "op": "remove", "flag": "read"}).ok
    assert unread_ids(realm.member) == [world.side[0], *world.general, world.direct, later]
    assert narrow_ids(realm.member, [term("is", "unread")])[0] == world.side[0]
    assert narrow_ids(realm.member, [])[0] == world.side[0]


def test_a_subscription_receives_what_is_sent_while_it_lasts(realm, world, drain_events):
    # GIVEN the member in the side channel for one message, out for one, back for one
    channel(realm.member, "side")
    first = send(realm.owner, "side", "plans", "while in")
    assert realm.member.delete("/users/me/subscriptions", {"subscriptions": ["side"]}).ok
    missed = send(realm.owner, "side", "plans", "while out")
    channel(realm.member, "side")
    second = send(realm.owner, "side", "plans", "in again")
    drain_events()
    # THEN the combined feed has what came while subscribed, in every period
    feed = narrow_ids(realm.member, [])
    assert first in feed and second in feed and missed not in feed
    assert not set(feed) & set(world.side)
    # AND the channel's history shows the rest as historical
    flags = flags_by_id(page(realm.member, [term("channel", "side")]))
    assert [i for i, f in flags.items() if "historical" in f] == [*world.side, missed]
    # AND after leaving, what was received stays
    assert realm.member.delete("/users/me/subscriptions", {"subscriptions": ["side"]}).ok
    feed = narrow_ids(realm.member, [])
    assert first in feed and second in feed and missed not in feed


def test_a_new_member_starts_with_their_channels_recent_history(realm, drain_events):
    # GIVEN a default channel with a message from last month and two from today, and a
    # private channel whose history its subscribers do not share
    welcome = channel(realm.admin, "welcome")
    assert realm.admin.patch(f"/streams/{welcome}", {"is_default_stream": True}).ok
    old = send(realm.admin, "welcome", "news", "last month's news")
    make_old(realm.realm_id, [old], 30 * 86_400)
    recent = [send(realm.admin, "welcome", "news", f"today's news {n}") for n in range(2)]
    secret = channel(realm.admin, "secret", invite_only=True,
                     history_public_to_subscribers=False)
    hidden = send(realm.admin, "secret", "plans", "before you came")
    drain_events()
    # WHEN someone accepts an invitation to both
    address = f"nina@{realm.subdomain}.example.net"
    assert invite(realm.admin, address, [secret],
                  include_realm_default_subscriptions=True).ok
    body = register(realm, emailed_key(address)).json
    nina = Account(realm.client, realm.realm_id, body["user_id"], body["email"],
                   body["api_key"], "Nina Newcomer", 400)
    drain_events()
    # THEN their combined feed starts with the recent messages, received and read, as
    # the reference gives a new user (and the welcome bot's greeting)
    feed = page(nina, [])
    channel_messages = [m for m in feed["messages"] if m["type"] == "stream"]
    assert [m["id"] for m in channel_messages] == recent
    assert all(m["flags"] == ["read"] for m in channel_messages)
    assert hidden not in flags_by_id(feed) and old not in flags_by_id(feed)
    # AND the older message is there as the channel's history
    assert flags_by_id(page(nina, [term("channel", "welcome")]))[old] == ["historical",
                                                                         "read"]
