"""Channel folders: POST /channel_folders/create, GET /channel_folders, events and state."""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib.actions.channels import folders as channel_folders
from chalicelib.models.channel_folders import ChannelFolder
from tests.functional.conftest import Account

FOLDER_FIELDS = {"id", "name", "description", "rendered_description", "creator_id",
                 "date_created", "is_archived"}


def create(account, name: str = "Engineering", description: str = "") -> Any:
    return account.post("/channel_folders/create", {"name": name, "description": description})


def listed(account, **params: Any) -> list[dict[str, Any]]:
    response = account.get("/channel_folders", params)
    assert response.ok, response.json
    return response.json["channel_folders"]


def error(response) -> str:
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST", response.json
    return response.json["msg"]


def test_create_list_with_event_and_state(realm, register_queue, fetch_events, drain_events):
    drain_events()
    queue_id = register_queue(realm.guest, event_types=["channel_folder"])["queue_id"]
    # WHEN an administrator creates a folder with a Markdown description
    response = create(realm.admin, " Engineering ", "For **engineers**")
    assert response.ok, response.json
    folder_id = response.json["channel_folder_id"]
    assert isinstance(folder_id, int)
    # THEN everyone can list it, in the reference's shape
    [folder] = listed(realm.guest)
    assert set(folder) == FOLDER_FIELDS
    assert folder["id"] == folder_id and folder["name"] == "Engineering"
    assert folder["description"] == "For **engineers**"
    assert folder["rendered_description"] == "<p>For <strong>engineers</strong></p>"
    assert (folder["creator_id"], folder["is_archived"]) == (realm.admin.user_id, False)
    assert folder["date_created"] > 1_600_000_000
    # AND an add event went to the realm
    drain_events()
    events = fetch_events(realm.guest, queue_id)
    assert [{k: v for k, v in e.items() if k != "id"} for e in events] == [
        {"type": "channel_folder", "op": "add", "channel_folder": folder}]
    # AND registration returns the folders when asked
    state = register_queue(realm.member, event_types=["channel_folder"])
    assert state["channel_folders"] == [folder]
    assert "channel_folders" not in register_queue(realm.member, event_types=["realm"])


def test_only_administrators_create(realm):
    for account in (realm.moderator, realm.member, realm.guest):
        assert "organization administrator" in error(create(account, "Mine"))
    assert create(realm.owner, "Owners'").ok
    assert [f["name"] for f in listed(realm.member)] == ["Owners'"]


def test_names_are_unique_per_realm_and_checked(realm):
    assert create(realm.admin, "Engineering").ok
    assert "already in use" in error(create(realm.admin, "engineering "))
    assert "empty" in error(create(realm.admin, "   "))
    too_long = "x" * (channel_folders.MAX_FOLDER_NAME_LENGTH + 1)
    assert "too long" in error(create(realm.admin, too_long))
    long_description = "x" * (channel_folders.MAX_FOLDER_DESCRIPTION_LENGTH + 1)
    assert "too long" in error(create(realm.admin, "Design", long_description))
    assert [f["name"] for f in listed(realm.admin)] == ["Engineering"]


def test_same_name_in_another_realm_is_fine(realm, chalice_client):
    from chalicelib.actions.users.users import NewUser
    from chalicelib.actions.workflows.realms import do_create_realm
    other_realm, owner_id, key = do_create_realm("Other", f"folders{realm.realm_id}", NewUser(
        email=f"o@folders{realm.realm_id}.example.com", full_name="O", role=100))
    other = Account(chalice_client, other_realm.realm_id, owner_id,
                    f"o@folders{realm.realm_id}.example.com", key, "O", 100)
    assert create(realm.admin, "Engineering").ok
    assert create(other, "Engineering").ok
    assert len(listed(realm.admin)) == len(listed(other)) == 1


def test_concurrent_create_is_refused_by_the_name_claim(realm, monkeypatch):
    # GIVEN a creator that checked the name before another took it
    assert create(realm.admin, "Engineering").ok
    monkeypatch.setattr(channel_folders.UniqueName, "get_or_none",
                        classmethod(lambda cls, *key, **kw: None))
    # WHEN it creates the same name, THEN the claim's condition refuses it
    assert "already in use" in error(create(realm.admin, "Engineering"))
    monkeypatch.undo()
    assert len(listed(realm.admin)) == 1


@pytest.mark.parametrize("include_archived, expected", [(False, ["Active"]),
                                                        (True, ["Active", "Old"])])
def test_include_archived(realm, include_archived, expected):
    assert create(realm.admin, "Active").ok
    old_id = create(realm.admin, "Old").json["channel_folder_id"]
    ChannelFolder(realm.realm_id, old_id).update(actions=[ChannelFolder.is_archived.set(True)])
    assert [f["name"] for f in listed(realm.member, include_archived=include_archived)
            ] == expected
    assert [f["name"] for f in listed(realm.member)] == ["Active"]
