"""Emoji reactions: POST/DELETE /messages/{id}/reactions, reactions on messages, events."""
from __future__ import annotations

import pytest

from chalicelib.actions.messages.reactions import check_add_reaction
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.messages import Message
from tests.functional.edit_helpers import channel, fetch, send
from tests.functional.race import race
from tests.functional.test_realm_emoji import add as add_custom_emoji


def react(account, message_id, **params):
    return account.post(f"/messages/{message_id}/reactions", params)


def unreact(account, message_id, **params):
    return account.delete(f"/messages/{message_id}/reactions", params)


def reaction_events(account, queue_id, fetch_events):
    return [e for e in fetch_events(account, queue_id) if e["type"] == "reaction"]


def test_reaction_is_stored_fetched_and_sent_to_readers(realm, register_queue, fetch_events,
                                                        drain_events, advertise):
    advertise(483)  # reaction events with the user object (dropped at 484)
    # GIVEN a channel message, a reader's queue and an outsider's
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.owner, "general", "lunch")
    reader = register_queue(realm.member, event_types=["reaction"])["queue_id"]
    drain_events()
    outsider = register_queue(realm.guest, event_types=["reaction"])["queue_id"]
    # WHEN the member reacts by name only
    response = react(realm.member, message_id, emoji_name="octopus")
    assert response.ok, response.json
    drain_events()
    # THEN the message carries the reaction in the reference shape
    expected = {"emoji_name": "octopus", "emoji_code": "1f419",
                "reaction_type": "unicode_emoji", "user_id": realm.member.user_id}
    assert fetch(realm.owner, message_id)["reactions"] == [expected]
    page = realm.owner.get("/messages", {"anchor": "newest", "num_before": 5, "num_after": 0})
    assert page.json["messages"][-1]["reactions"] == [expected]
    # AND readers get a reaction event with the deprecated user object; others none
    [event] = reaction_events(realm.member, reader, fetch_events)
    assert {k: v for k, v in event.items() if k != "id"} == {
        "type": "reaction", "op": "add", "message_id": message_id, **expected,
        "user": {"user_id": realm.member.user_id, "email": realm.member.email,
                 "full_name": realm.member.full_name}}
    assert reaction_events(realm.guest, outsider, fetch_events) == []


def test_from_level_484_reaction_events_have_no_user_object(realm, register_queue,
                                                             fetch_events, drain_events,
                                                             advertise):
    advertise(484)
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.owner, "general", "lunch")
    reader = register_queue(realm.member, event_types=["reaction"])["queue_id"]
    # WHEN the owner reacts, then takes it back
    assert react(realm.owner, message_id, emoji_name="octopus").ok
    assert unreact(realm.owner, message_id, emoji_name="octopus").ok
    drain_events()
    # THEN both events name the user by id alone: the deprecated object is gone
    added, removed = reaction_events(realm.member, reader, fetch_events)
    for event in (added, removed):
        assert {k: v for k, v in event.items() if k not in ("id", "op")} == {
            "type": "reaction", "message_id": message_id, "emoji_name": "octopus",
            "emoji_code": "1f419", "reaction_type": "unicode_emoji",
            "user_id": realm.owner.user_id}
    assert (added["op"], removed["op"]) == ("add", "remove")


def test_a_second_reaction_with_the_same_emoji_is_a_vote_under_its_first_name(realm):
    channel(realm.owner, "general", [realm.owner, realm.member, realm.admin])
    message_id = send(realm.owner, "general", "vote")
    assert react(realm.member, message_id, emoji_name="+1").ok
    # WHEN another user reacts with another name of the same emoji
    assert react(realm.admin, message_id, emoji_name="thumbs_up").ok
    assert react(realm.owner, message_id, emoji_name="tada").ok
    # THEN both count for the first name, in the order they were added
    reactions = fetch(realm.owner, message_id)["reactions"]
    assert [(r["emoji_name"], r["emoji_code"], r["user_id"]) for r in reactions] == [
        ("+1", "1f44d", realm.member.user_id), ("+1", "1f44d", realm.admin.user_id),
        ("tada", "1f389", realm.owner.user_id)]


def test_duplicate_reaction_and_missing_reaction_errors(realm):
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.owner, "general", "dup")
    assert react(realm.member, message_id, emoji_name="octopus").ok
    again = react(realm.member, message_id, emoji_name="octopus", emoji_code="1f419",
                  reaction_type="unicode_emoji")
    assert (again.status, again.json["code"], again.json["msg"]) == (
        400, "REACTION_ALREADY_EXISTS", "You have already reacted with this emoji.")
    missing = unreact(realm.member, message_id, emoji_name="tada")
    assert (missing.status, missing.json["code"], missing.json["msg"]) == (
        400, "REACTION_DOES_NOT_EXIST", "You have not reacted with this emoji.")
    # Another user's reaction is not the caller's to remove
    assert unreact(realm.owner, message_id, emoji_name="octopus").json[
        "code"] == "REACTION_DOES_NOT_EXIST"
    neither = unreact(realm.member, message_id)
    assert neither.status == 400 and "emoji_name, emoji_code" in neither.json["msg"]
    assert len(fetch(realm.owner, message_id)["reactions"]) == 1


def test_removing_by_name_or_by_code_sends_remove_events(realm, register_queue, fetch_events,
                                                         drain_events):
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.owner, "general", "rm")
    assert react(realm.member, message_id, emoji_name="octopus").ok
    assert react(realm.member, message_id, emoji_name="tada").ok
    drain_events()
    queue_id = register_queue(realm.owner, event_types=["reaction"])["queue_id"]
    assert unreact(realm.member, message_id, emoji_name="octopus").ok
    assert unreact(realm.member, message_id, emoji_code="1f389").ok   # type defaults: unicode
    drain_events()
    events = reaction_events(realm.owner, queue_id, fetch_events)
    assert [(e["op"], e["emoji_name"], e["emoji_code"]) for e in events] == [
        ("remove", "octopus", "1f419"), ("remove", "tada", "1f389")]
    assert fetch(realm.owner, message_id)["reactions"] == []


@pytest.mark.parametrize("params, message", [
    ({"emoji_name": "no_such_emoji"}, "No emoji called 'no_such_emoji' exists"),
    ({"emoji_name": "octopus", "emoji_code": "ffff0", "reaction_type": "unicode_emoji"},
     "Unknown emoji code."),
    ({"emoji_name": "octopus", "emoji_code": "1f389", "reaction_type": "unicode_emoji"},
     "Unknown emoji name."),
    ({"emoji_name": "octopus", "emoji_code": "1f419", "reaction_type": "picture"},
     "Unknown emoji type."),
    ({"emoji_name": "octopus", "emoji_code": "999", "reaction_type": "realm_emoji"},
     "No such custom emoji."),
    ({"emoji_name": "x" * 101}, "emoji_name has an unacceptable value"),
    ({"emoji_name": "octopus", "emoji_code": "1" * 101}, "emoji_code has an unacceptable value"),
])
def test_emoji_that_is_not_one_is_refused(realm, params, message):
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.owner, "general", "bad")
    response = react(realm.member, message_id, **params)
    assert (response.status, response.json["msg"]) == (400, message), response.json
    assert fetch(realm.owner, message_id)["reactions"] == []


def test_custom_and_service_emoji(realm):
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.owner, "general", "custom")
    assert add_custom_emoji(realm.member, "green_tick").ok
    emoji_id = next(iter(realm.member.get("/realm/emoji").json["emoji"]))
    assert react(realm.member, message_id, emoji_name="green_tick").ok
    assert react(realm.member, message_id, emoji_name="service").ok
    reactions = fetch(realm.owner, message_id)["reactions"]
    assert [(r["emoji_name"], r["emoji_code"], r["reaction_type"]) for r in reactions] == [
        ("green_tick", emoji_id, "realm_emoji"), ("service", "service", "service_extra_emoji")]
    # A deactivated custom emoji takes no new reactions, but votes for existing ones count
    assert realm.member.delete("/realm/emoji/green_tick").ok
    other = send(realm.owner, "general", "later")
    refused = react(realm.owner, other, emoji_name="green_tick", emoji_code=emoji_id,
                    reaction_type="realm_emoji")
    assert refused.json["msg"] == "That custom emoji was removed."
    assert react(realm.owner, message_id, emoji_name="green_tick", emoji_code=emoji_id,
                 reaction_type="realm_emoji").ok


def test_messages_the_caller_cannot_read_or_change_are_invalid(realm):
    channel(realm.owner, "general", [realm.owner])
    channel(realm.owner, "secret", [realm.owner], invite_only=True)
    public_id = send(realm.owner, "general", "pub")
    secret_id = send(realm.owner, "secret", "priv")
    dm = realm.owner.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                        "content": "psst"})
    cases = [(realm.guest, public_id), (realm.member, secret_id),
             (realm.member, dm.json["id"]), (realm.member, 999999)]
    for account, message_id in cases:
        for response in (react(account, message_id, emoji_name="octopus"),
                         unreact(account, message_id, emoji_name="octopus")):
            assert (response.status, response.json["msg"]) == \
                (400, "Message not found, or you cannot see it.")
    # A public channel's message is open to a member who is not subscribed
    assert react(realm.member, public_id, emoji_name="octopus").ok
    # An archived channel's messages stay readable but take no reactions
    stream_id = realm.owner.get("/get_stream_id", {"stream": "general"}).json["stream_id"]
    assert realm.owner.delete(f"/streams/{stream_id}").ok
    assert fetch(realm.owner, public_id)["reactions"] != []
    archived = react(realm.owner, public_id, emoji_name="tada")
    assert archived.json["msg"] == "Message not found, or you cannot see it."


def test_direct_message_reactions_reach_its_participants_only(realm, register_queue,
                                                              fetch_events, drain_events):
    dm = realm.owner.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                        "content": "hi"}).json["id"]
    drain_events()
    queues = {a.user_id: register_queue(a, event_types=["reaction"])["queue_id"]
              for a in (realm.owner, realm.admin, realm.member)}
    assert react(realm.admin, dm, emoji_name="heart").ok
    drain_events()
    got = {a.user_id: len(reaction_events(a, queues[a.user_id], fetch_events))
           for a in (realm.owner, realm.admin, realm.member)}
    assert got == {realm.owner.user_id: 1, realm.admin.user_id: 1, realm.member.user_id: 0}


def test_concurrent_identical_reactions_end_as_one(realm, drain_events):
    # GIVEN a message without reactions (its first reaction creates the map)
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.owner, "general", "race")
    caller = Principal(realm.realm_id, realm.member.user_id, realm.member.email, 400, False)
    # WHEN six requests add the same reaction at once
    results = race(6, lambda: check_add_reaction(caller, message_id, "octopus", None, None))
    results = [r.code if isinstance(r, ApiError) else r for r in results]
    # THEN one is stored, the others are told it exists, and one event was written
    assert sorted(map(str, results)) == ["REACTION_ALREADY_EXISTS"] * 5 + ["{}"]
    stored = Message.get(realm.realm_id, message_id).reactions.as_dict()
    assert list(stored) == [f"unicode_emoji:1f419:{realm.member.user_id}"]
    records = drain_events.read()
    assert sum(1 for r in records if '"reaction"' in str(r)) == 1
