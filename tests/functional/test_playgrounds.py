"""Code playgrounds: POST /realm/playgrounds, DELETE /realm/playgrounds/{id}, events, state."""
from __future__ import annotations

import itertools

import pytest

from chalicelib.models.playgrounds import Playground
from tests.functional.conftest import Account

PYTHON = {"name": "Python playground", "pygments_language": "Python",
          "url_template": "https://python.example.com?code={code}"}
_other_realms = itertools.count(1)


def add(account, **overrides):
    return account.post("/realm/playgrounds", {**PYTHON, **overrides})


def state(register_queue, account):
    return register_queue(account, event_types=["realm_playgrounds"])["realm_playgrounds"]


def error_of(response) -> str:
    assert response.status == 400, response.json
    assert response.json["code"] == "BAD_REQUEST"
    return response.json["msg"]


def test_add_and_remove_with_events_and_state(realm, register_queue, fetch_events,
                                              drain_events):
    # GIVEN queues of users of every role
    queues = [(a, register_queue(a, event_types=["realm_playgrounds"])["queue_id"])
              for a in (realm.owner, realm.member, realm.guest)]
    # WHEN an administrator adds two playgrounds (fields trimmed)
    first = add(realm.admin, name=" Python playground ", pygments_language=" Python ")
    second = add(realm.owner, name="Rust", pygments_language="Rust",
                 url_template="https://play.rust-lang.org/?code={code}&edition=2021")
    assert first.ok and second.ok, (first.json, second.json)
    first_id, second_id = first.json["id"], second.json["id"]
    assert isinstance(first_id, int) and second_id > first_id
    python = {"id": first_id, **PYTHON}
    rust = {"id": second_id, "name": "Rust", "pygments_language": "Rust",
            "url_template": "https://play.rust-lang.org/?code={code}&edition=2021"}
    # THEN everyone's registration state lists both, in id order
    assert state(register_queue, realm.guest) == [python, rust]
    # WHEN the first is removed
    assert realm.admin.delete(f"/realm/playgrounds/{first_id}").ok
    assert state(register_queue, realm.member) == [rust]
    # THEN every user got each change as the full list, in the reference's shape
    drain_events()
    for account, queue_id in queues:
        events = fetch_events(account, queue_id)
        assert [{k: v for k, v in e.items() if k != "id"} for e in events] == [
            {"type": "realm_playgrounds", "realm_playgrounds": [python]},
            {"type": "realm_playgrounds", "realm_playgrounds": [python, rust]},
            {"type": "realm_playgrounds", "realm_playgrounds": [rust]},
        ]
    # AND the state is only there when asked for
    assert "realm_playgrounds" not in register_queue(realm.member, event_types=["alert_words"])
    assert register_queue(realm.member)["realm_playgrounds"] == [rust]


@pytest.mark.parametrize("role", ["moderator", "member", "guest"])
def test_only_administrators_add_or_remove(realm, register_queue, fetch_events,
                                           drain_events, role):
    playground_id = add(realm.admin).json["id"]
    drain_events()
    queue_id = register_queue(realm.owner, event_types=["realm_playgrounds"])["queue_id"]
    account = getattr(realm, role)
    assert error_of(add(account, name="Mine")) == "Only the organization's administrators can do this."
    assert error_of(account.delete(f"/realm/playgrounds/{playground_id}")) == \
        "Only the organization's administrators can do this."
    # Unknown ids give the permission error too: nothing is revealed to non-administrators.
    assert error_of(account.delete("/realm/playgrounds/999999")) == \
        "Only the organization's administrators can do this."
    assert [p["id"] for p in state(register_queue, realm.owner)] == [playground_id]
    drain_events()
    assert fetch_events(realm.owner, queue_id) == []


@pytest.mark.parametrize("overrides, message", [
    ({"url_template": "https://example.com?code={code"}, "The URL template is not valid."),
    ({"url_template": "https://example.com?code={=code}"}, "The URL template is not valid."),
    ({"url_template": "https://example.com{.code}"}, "The URL template is not valid."),
    ({"url_template": "ftp://example.com/{code}"}, "The URL template is not valid."),
    ({"url_template": "https://{code}"}, "The URL template is not valid."),
    ({"url_template": ""}, "The URL template is not valid."),
    ({"url_template": "https://example.com/"},
     'The URL template needs the variable "code"'),
    ({"url_template": "https://example.com/?c={source}"},
     'The URL template needs the variable "code"'),
    ({"url_template": "https://example.com/?c={code}&l={lang}"},
     'The URL template may use no variable except "code"'),
    ({"url_template": "https://example.com/?c={code}" + "x" * 2048},
     "url_template is over the limit of 2048 characters"),
    ({"name": "  "}, "Name cannot be empty."),
    ({"name": "n" * 101}, "name is over the limit of 100 characters"),
    ({"pygments_language": ""}, "Pygments language cannot be empty."),
    ({"pygments_language": "Py:thon"}, "The Pygments language name has characters it cannot contain"),
    ({"pygments_language": "P" * 41}, "pygments_language is over the limit of 40 characters"),
])
def test_add_errors(realm, register_queue, fetch_events, drain_events, overrides, message):
    queue_id = register_queue(realm.admin, event_types=["realm_playgrounds"])["queue_id"]
    assert error_of(add(realm.admin, **overrides)) == message
    assert state(register_queue, realm.admin) == []
    drain_events()
    assert fetch_events(realm.admin, queue_id) == []


@pytest.mark.parametrize("url_template", ["https://example.com/run{?code}",
                                          "https://example.com{/code*}",
                                          "https://example.com/?c={code:100}"])
def test_templates_of_every_rfc_6570_level(realm, register_queue, url_template):
    response = add(realm.admin, url_template=url_template)
    assert response.ok, response.json
    assert [p["url_template"] for p in state(register_queue, realm.member)] == [url_template]


def test_all_parameters_are_required(realm):
    for missing in PYTHON:
        params = {k: v for k, v in PYTHON.items() if k != missing}
        response = realm.admin.post("/realm/playgrounds", params)
        assert response.status == 400
        assert (response.json["code"], response.json["var_name"]) == (
            "REQUEST_VARIABLE_MISSING", missing)


def test_name_is_unique_per_language(realm, register_queue):
    assert add(realm.admin).ok
    assert error_of(add(realm.owner)) == \
        "A playground with this name already exists for this language."
    # The same name for another language, or another name for the language, is fine.
    assert add(realm.admin, pygments_language="Python3").ok
    assert add(realm.admin, name="Other Python").ok
    assert len(state(register_queue, realm.admin)) == 3


def test_removed_name_can_be_added_again(realm, register_queue):
    first_id = add(realm.admin).json["id"]
    assert realm.admin.delete(f"/realm/playgrounds/{first_id}").ok
    again = add(realm.admin)
    assert again.ok, again.json
    assert [p["id"] for p in state(register_queue, realm.admin)] == [again.json["id"]]
    assert again.json["id"] != first_id


@pytest.mark.parametrize("playground_id", ["999999", "0", "-1"])
def test_remove_unknown(realm, playground_id):
    assert error_of(realm.admin.delete(f"/realm/playgrounds/{playground_id}")) == \
        "No code playground with that ID exists"


def test_remove_twice(realm, register_queue, fetch_events, drain_events):
    playground_id = add(realm.admin).json["id"]
    assert realm.admin.delete(f"/realm/playgrounds/{playground_id}").ok
    drain_events()
    queue_id = register_queue(realm.admin, event_types=["realm_playgrounds"])["queue_id"]
    assert error_of(realm.admin.delete(f"/realm/playgrounds/{playground_id}")) == \
        "No code playground with that ID exists"
    drain_events()
    assert fetch_events(realm.admin, queue_id) == []


def other_realm_owner(realm) -> Account:
    """The owner of a fresh second organization (its ids restart from 1 too)."""
    from chalicelib.actions.users.users import NewUser
    from chalicelib.actions.workflows.realms import do_create_realm

    subdomain = f"play{next(_other_realms)}x{realm.realm_id}"
    email = f"owner@{subdomain}.example.com"
    other, owner_id, key = do_create_realm("Other org", subdomain, NewUser(
        email=email, full_name="Other Owner", role=100))
    return Account(realm.client, other.realm_id, owner_id, email, key, "Other Owner", 100)


def test_playgrounds_are_separate_between_realms(realm, register_queue, fetch_events,
                                                 drain_events):
    # GIVEN a playground here, and another organization with its own queue
    mine = add(realm.admin).json["id"]
    outsider = other_realm_owner(realm)
    drain_events()
    here = register_queue(realm.member, event_types=["realm_playgrounds"])["queue_id"]
    there = register_queue(outsider, event_types=["realm_playgrounds"])["queue_id"]
    assert state(register_queue, outsider) == []
    # WHEN the other organization adds the same playground (same name: no clash) and
    # removes "its" id, which equals this realm's
    theirs = add(outsider)
    assert theirs.ok, theirs.json
    assert theirs.json["id"] == mine
    assert outsider.delete(f"/realm/playgrounds/{mine}").ok
    # THEN this realm's playground and queue are untouched
    assert state(register_queue, realm.member) == [{"id": mine, **PYTHON}]
    assert Playground.get_or_none(realm.realm_id, mine) is not None
    drain_events()
    assert fetch_events(realm.member, here) == []
    assert [e["realm_playgrounds"] for e in fetch_events(outsider, there)] == [
        [{"id": mine, **PYTHON}], []]
