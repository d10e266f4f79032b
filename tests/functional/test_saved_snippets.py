"""Saved snippets: GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{id}, events, state."""
from __future__ import annotations

import itertools

import pytest

from chalicelib import config
from chalicelib.actions.users.saved_snippets import do_edit_saved_snippet
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import user_key
from chalicelib.models.saved_snippets import SavedSnippet
from tests.functional.conftest import Account

SNIPPET_FIELDS = {"id", "title", "content", "date_created"}
_other_realms = itertools.count(1)


def create(account, title="Greeting", content="Hello **there**"):
    return account.post("/saved_snippets", {"title": title, "content": content})


def listed(account):
    response = account.get("/saved_snippets")
    assert response.ok, response.json
    return response.json["saved_snippets"]


def test_create_list_edit_delete_with_events_and_state(realm, register_queue, fetch_events,
                                                       drain_events):
    # GIVEN a queue for saved snippet events, and another user's queue
    queue_id = register_queue(realm.member, event_types=["saved_snippets"])["queue_id"]
    others = register_queue(realm.admin)["queue_id"]
    # WHEN two snippets are created (titles and contents trimmed)
    first = create(realm.member, "  Greeting ", "\n Hello **there** \n")
    second = create(realm.member, "Bye", "See you")
    assert first.ok and second.ok, (first.json, second.json)
    first_id, second_id = first.json["saved_snippet_id"], second.json["saved_snippet_id"]
    assert isinstance(first_id, int) and second_id > first_id
    # THEN GET lists them, in id order, in the reference shape
    [one, two] = listed(realm.member)
    assert set(one) == SNIPPET_FIELDS
    assert (one["id"], one["title"], one["content"]) == (first_id, "Greeting", "Hello **there**")
    assert (two["id"], two["title"], two["content"]) == (second_id, "Bye", "See you")
    assert isinstance(one["date_created"], int) and one["date_created"] > 1_600_000_000
    # WHEN the first is edited (title only, then content only) and the second deleted
    assert realm.member.patch(f"/saved_snippets/{first_id}", {"title": " Hi "}).ok
    assert realm.member.patch(f"/saved_snippets/{first_id}", {"content": "Hi all"}).ok
    assert realm.member.delete(f"/saved_snippets/{second_id}").ok
    assert listed(realm.member) == [{"id": first_id, "title": "Hi", "content": "Hi all",
                                     "date_created": one["date_created"]}]
    # THEN each change was one event with the reference's shape, to the owner only
    drain_events()
    events = fetch_events(realm.member, queue_id)
    assert [{k: v for k, v in e.items() if k != "id"} for e in events] == [
        {"type": "saved_snippets", "op": "add", "saved_snippet": one},
        {"type": "saved_snippets", "op": "add", "saved_snippet": two},
        {"type": "saved_snippets", "op": "update", "saved_snippet": {
            **one, "title": "Hi"}},
        {"type": "saved_snippets", "op": "update", "saved_snippet": {
            **one, "title": "Hi", "content": "Hi all"}},
        {"type": "saved_snippets", "op": "remove", "saved_snippet_id": second_id},
    ]
    assert fetch_events(realm.admin, others) == []
    # AND registration returns the remaining snippet, only when asked for
    state = register_queue(realm.member, event_types=["saved_snippets"])
    assert state["saved_snippets"] == listed(realm.member)
    assert "saved_snippets" not in register_queue(realm.member, event_types=["alert_words"])
    assert register_queue(realm.member)["saved_snippets"] == listed(realm.member)


def test_edit_both_fields_at_once(realm, register_queue, fetch_events, drain_events):
    snippet_id = create(realm.member).json["saved_snippet_id"]
    drain_events()   # its event is delivered before the queue exists
    queue_id = register_queue(realm.member, event_types=["saved_snippets"])["queue_id"]
    assert realm.member.patch(f"/saved_snippets/{snippet_id}",
                              {"title": "New", "content": "Body"}).ok
    drain_events()
    [event] = fetch_events(realm.member, queue_id)
    assert event["op"] == "update"
    assert (event["saved_snippet"]["title"], event["saved_snippet"]["content"]) == (
        "New", "Body")
    assert [(s["title"], s["content"]) for s in listed(realm.member)] == [("New", "Body")]


@pytest.mark.parametrize("params, message", [
    ({"title": "", "content": "x"}, "Title cannot be empty."),
    ({"title": "  \n ", "content": "x"}, "Title cannot be empty."),
    ({"title": "t", "content": ""}, "Content cannot be empty."),
    ({"title": "t", "content": " \t "}, "Content cannot be empty."),
    ({"title": "x" * 61, "content": "x"}, "title is over the limit of 60 characters"),
    ({"title": "t", "content": "x" * (config.MAX_MESSAGE_LENGTH + 1)},
     f"content is over the limit of {config.MAX_MESSAGE_LENGTH} characters"),
])
def test_create_errors(realm, register_queue, fetch_events, drain_events, params, message):
    queue_id = register_queue(realm.member, event_types=["saved_snippets"])["queue_id"]
    response = realm.member.post("/saved_snippets", params)
    assert response.status == 400
    assert (response.json["code"], response.json["msg"]) == ("BAD_REQUEST", message)
    assert listed(realm.member) == []
    drain_events()
    assert fetch_events(realm.member, queue_id) == []


def test_limits_are_inclusive(realm):
    # Surrounding spaces do not count toward the limit: they are trimmed first.
    response = create(realm.member, " " + "t" * 60 + " ", "c" * config.MAX_MESSAGE_LENGTH)
    assert response.ok, response.json
    [snippet] = listed(realm.member)
    assert (len(snippet["title"]), len(snippet["content"])) == (60, config.MAX_MESSAGE_LENGTH)


def test_create_requires_both_parameters(realm):
    for params, missing in (({"content": "x"}, "title"), ({"title": "x"}, "content")):
        response = realm.member.post("/saved_snippets", params)
        assert response.status == 400
        assert response.json["code"] == "REQUEST_VARIABLE_MISSING"
        assert response.json["var_name"] == missing
    assert listed(realm.member) == []


@pytest.mark.parametrize("params, message", [
    ({}, "The request changes nothing"),
    ({"title": " "}, "Title cannot be empty."),
    ({"content": ""}, "Content cannot be empty."),
    ({"title": "x" * 61}, "title is over the limit of 60 characters"),
    ({"title": "ok", "content": ""}, "Content cannot be empty."),   # nothing half-applied
])
def test_edit_errors(realm, register_queue, fetch_events, drain_events, params, message):
    snippet_id = create(realm.member).json["saved_snippet_id"]
    before = listed(realm.member)
    drain_events()   # its event is delivered before the queue exists
    queue_id = register_queue(realm.member, event_types=["saved_snippets"])["queue_id"]
    response = realm.member.patch(f"/saved_snippets/{snippet_id}", params)
    assert response.status == 400
    assert (response.json["code"], response.json["msg"]) == ("BAD_REQUEST", message)
    assert listed(realm.member) == before
    drain_events()
    assert fetch_events(realm.member, queue_id) == []


@pytest.mark.parametrize("snippet_id", ["999999", "0", "-1"])
def test_unknown_ids(realm, snippet_id):
    for response in (realm.member.patch(f"/saved_snippets/{snippet_id}", {"title": "x"}),
                     realm.member.delete(f"/saved_snippets/{snippet_id}")):
        # As the reference: HTTP 404 with the code BAD_REQUEST.
        assert response.status == 404
        assert (response.json["code"], response.json["msg"]) == (
            "BAD_REQUEST", "No saved snippet with that ID exists.")


def test_ids_beyond_any_integer_the_api_takes_are_refused(realm):
    # DynamoDB refuses numbers of over 38 digits: such an id never reaches it (no route
    # serves a path whose id is no integer the API takes)
    response = realm.member.delete(f"/saved_snippets/{10**40}")
    assert response.status == 404
    assert response.json["code"] == "NOT_FOUND"


def test_snippets_are_private_to_their_owner(realm, register_queue, fetch_events,
                                             drain_events):
    # GIVEN the member's snippet
    snippet_id = create(realm.member).json["saved_snippet_id"]
    drain_events()   # its event is delivered before the queue exists
    queue_id = register_queue(realm.member, event_types=["saved_snippets"])["queue_id"]
    # THEN nobody else sees, edits or deletes it, not even the organization owner
    for other in (realm.owner, realm.admin, realm.guest):
        assert listed(other) == []
        assert register_queue(other, event_types=["saved_snippets"])["saved_snippets"] == []
        edit = other.patch(f"/saved_snippets/{snippet_id}", {"title": "Mine now"})
        delete = other.delete(f"/saved_snippets/{snippet_id}")
        for response in (edit, delete):
            assert response.status == 404
            assert response.json["msg"] == "No saved snippet with that ID exists."
    assert [s["title"] for s in listed(realm.member)] == ["Greeting"]
    drain_events()
    assert fetch_events(realm.member, queue_id) == []
    # AND a guest may keep snippets of their own
    assert create(realm.guest, "Mine", "ok").ok
    assert [s["title"] for s in listed(realm.guest)] == ["Mine"]
    assert [s["title"] for s in listed(realm.member)] == ["Greeting"]


def other_realm_owner(realm) -> Account:
    """The owner of a fresh second organization (its ids restart from 1 too)."""
    from chalicelib.actions.users.users import NewUser
    from chalicelib.actions.workflows.realms import do_create_realm

    subdomain = f"snip{next(_other_realms)}x{realm.realm_id}"
    email = f"owner@{subdomain}.example.com"
    other, owner_id, key = do_create_realm("Other org", subdomain, NewUser(
        email=email, full_name="Other Owner", role=100))
    return Account(realm.client, other.realm_id, owner_id, email, key, "Other Owner", 100)


def test_snippets_are_separate_between_realms(realm, register_queue, fetch_events,
                                              drain_events):
    # GIVEN a snippet in each of two organizations, with the same per-realm id
    mine = create(realm.member, "Here", "this realm").json["saved_snippet_id"]
    outsider = other_realm_owner(realm)
    drain_events()
    queue_id = register_queue(realm.member, event_types=["saved_snippets"])["queue_id"]
    theirs = create(outsider, "There", "other realm").json["saved_snippet_id"]
    assert theirs == mine == 1
    # WHEN the outsider edits and deletes "their" id
    assert outsider.patch(f"/saved_snippets/{theirs}", {"title": "Changed"}).ok
    assert [s["title"] for s in listed(outsider)] == ["Changed"]
    assert outsider.delete(f"/saved_snippets/{theirs}").ok
    # THEN only their own snippet changed; this realm's user saw nothing
    assert [(s["id"], s["title"]) for s in listed(realm.member)] == [(mine, "Here")]
    assert listed(outsider) == []
    drain_events()
    assert fetch_events(realm.member, queue_id) == []


def test_deleted_snippet_is_not_resurrected_by_an_edit(realm):
    snippet_id = create(realm.member).json["saved_snippet_id"]
    assert realm.member.delete(f"/saved_snippets/{snippet_id}").ok
    edit = realm.member.patch(f"/saved_snippets/{snippet_id}", {"title": "Back?"})
    assert edit.status == 404 and edit.json["msg"] == "No saved snippet with that ID exists."
    again = realm.member.delete(f"/saved_snippets/{snippet_id}")
    assert again.status == 404 and again.json["msg"] == "No saved snippet with that ID exists."
    assert listed(realm.member) == []
    assert SavedSnippet.get_or_none(user_key(realm.realm_id, realm.member.user_id),
                                    snippet_id) is None


def principal(account) -> Principal:
    return Principal(account.realm_id, account.user_id, account.email, account.role, False)


def test_edit_racing_a_delete_does_not_resurrect(realm, monkeypatch, register_queue,
                                                 fetch_events, drain_events):
    # GIVEN a snippet that another request deletes right after this edit has read it
    snippet_id = create(realm.member).json["saved_snippet_id"]
    drain_events()
    queue_id = register_queue(realm.member, event_types=["saved_snippets"])["queue_id"]
    real_get = SavedSnippet.get_or_none

    def read_then_lose_it(*args, **kwargs):
        item = real_get(*args, **kwargs)
        if item is not None:
            assert realm.member.delete(f"/saved_snippets/{snippet_id}").ok
        return item

    monkeypatch.setattr(SavedSnippet, "get_or_none", read_then_lose_it)
    # WHEN the edit writes
    with pytest.raises(ApiError) as error:
        do_edit_saved_snippet(principal(realm.member), snippet_id, "Back?", None)
    # THEN it fails as for any unknown snippet; nothing was written, only the removal sent
    assert error.value.msg == "No saved snippet with that ID exists."
    assert real_get(user_key(realm.realm_id, realm.member.user_id), snippet_id) is None
    drain_events()
    assert [e["op"] for e in fetch_events(realm.member, queue_id)] == ["remove"]


def test_concurrent_edits_send_the_stored_snippet(realm, monkeypatch, register_queue,
                                                  fetch_events, drain_events):
    # GIVEN a content edit that lands after this title edit has read the snippet
    snippet_id = create(realm.member, "Old", "Old body").json["saved_snippet_id"]
    drain_events()
    queue_id = register_queue(realm.member, event_types=["saved_snippets"])["queue_id"]
    real_get = SavedSnippet.get_or_none
    calls = []

    def read_then_race(*args, **kwargs):
        item = real_get(*args, **kwargs)
        calls.append(item)
        if len(calls) == 1:
            assert realm.member.patch(f"/saved_snippets/{snippet_id}",
                                      {"content": "New body"}).ok
        return item

    monkeypatch.setattr(SavedSnippet, "get_or_none", read_then_race)
    # WHEN the title edit writes
    assert do_edit_saved_snippet(principal(realm.member), snippet_id, "New", None) == {}
    # THEN it read again, kept the other edit, and its event shows the stored snippet
    assert len(calls) >= 2
    monkeypatch.undo()
    assert [(s["title"], s["content"]) for s in listed(realm.member)] == [("New", "New body")]
    drain_events()
    events = fetch_events(realm.member, queue_id)
    assert [(e["saved_snippet"]["title"], e["saved_snippet"]["content"]) for e in events] == [
        ("Old", "New body"), ("New", "New body")]
