"""Channel folders: POST /channel_folders/create, GET /channel_folders, PATCH
/channel_folders/{id} and their order (PATCH /channel_folders), events and state."""
from __future__ import annotations

from typing import Any

import pytest

from chalicelib.actions.channels import folders as channel_folders
from chalicelib.models.channel_folders import ChannelFolder
from tests.functional.conftest import Account

FOLDER_FIELDS = {"id", "name", "description", "rendered_description", "creator_id",
                 "date_created", "is_archived", "order"}


def create(account, name: str = "Engineering", description: str = "") -> Any:
    return account.post("/channel_folders/create", {"name": name, "description": description})


def listed(account, **params: Any) -> list[dict[str, Any]]:
    response = account.get("/channel_folders", params)
    assert response.ok, response.json
    return response.json["channel_folders"]


def error(response) -> str:
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST", response.json
    return response.json["msg"]


def test_create_list_with_event_and_state(realm, register_queue, fetch_events, drain_events,
                                          advertise):
    advertise(414)
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
        assert "organization's administrators" in error(create(account, "Mine"))
    assert create(realm.owner, "Owners'").ok
    assert [f["name"] for f in listed(realm.member)] == ["Owners'"]


def test_names_are_unique_per_realm_and_checked(realm):
    assert create(realm.admin, "Engineering").ok
    assert "already has that name" in error(create(realm.admin, "engineering "))
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
    assert "already has that name" in error(create(realm.admin, "Engineering"))
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


def _events(fetch_events, account, queue_id: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "id"} for e in fetch_events(account, queue_id)]


def test_folders_keep_the_order_administrators_give(realm, register_queue, fetch_events,
                                                     drain_events, advertise):
    advertise(418)
    ids = [create(realm.admin, name).json["channel_folder_id"] for name in ("A", "B", "C")]
    archived = ids[1]
    assert realm.admin.patch(f"/channel_folders/{archived}", {"is_archived": True}).ok
    # New folders come last
    assert [(f["id"], f["order"]) for f in listed(realm.member, include_archived=True)] == [
        (ids[0], 0), (ids[1], 1), (ids[2], 2)]
    drain_events()
    queue_id = register_queue(realm.member, event_types=["channel_folder"])["queue_id"]
    # WHEN an administrator reorders them all (archived ones too, level 414)
    new_order = [ids[2], ids[0], ids[1]]
    assert realm.admin.patch("/channel_folders", {"order": new_order}).ok
    # THEN every list and the state follow it, and the organization is told (level 418)
    assert [(f["id"], f["order"]) for f in listed(realm.member, include_archived=True)] == [
        (ids[2], 0), (ids[0], 1), (ids[1], 2)]
    assert [f["id"] for f in listed(realm.member)] == [ids[2], ids[0]]
    state = register_queue(realm.member, event_types=["channel_folder"])
    assert [f["id"] for f in state["channel_folders"]] == new_order
    drain_events()
    assert _events(fetch_events, realm.member, queue_id) == [
        {"type": "channel_folder", "op": "reorder", "order": new_order}]
    # AND the order must name every folder once, and only administrators give it
    for bad in ([ids[0], ids[2]], [*new_order, ids[0]], [*new_order[:2], 999]):
        assert error(realm.admin.patch("/channel_folders", {"order": bad})) == (
            "The order must list every existing item exactly once.")
    assert "administrator" in error(realm.member.patch("/channel_folders", {"order": new_order}))
    # AND a client below level 414 sees them by id, without order
    advertise(413)
    assert [f["id"] for f in listed(realm.member, include_archived=True)] == ids
    assert "order" not in listed(realm.member)[0]


def test_a_folder_is_renamed_described_and_archived_when_empty(
        realm, register_queue, fetch_events, drain_events, advertise):
    advertise(414)
    folder_id = create(realm.admin, "Engineering").json["channel_folder_id"]
    assert create(realm.admin, "Design").ok
    stream = realm.admin.post("/users/me/subscriptions", {"subscriptions": [{"name": "dev"}]})
    assert stream.ok
    stream_id = realm.admin.get("/get_stream_id", {"stream": "dev"}).json["stream_id"]
    assert realm.admin.patch(f"/streams/{stream_id}", {"folder_id": folder_id}).ok
    drain_events()
    queue_id = register_queue(realm.member, event_types=["channel_folder"])["queue_id"]
    path = f"/channel_folders/{folder_id}"
    # Renamed and described, each change told to the organization
    assert realm.admin.patch(path, {"name": "Platform", "description": "*Core*"}).ok
    assert error(realm.admin.patch(path, {"name": "design"})) == (
        "Another channel folder already has that name")
    assert create(realm.admin, "Engineering").ok   # the old name is free again
    # Not archived while a channel is in it; archived once it is empty
    assert error(realm.admin.patch(path, {"is_archived": True})) == (
        "Move its channels out of the folder before archiving it.")
    assert realm.admin.patch(f"/streams/{stream_id}", {"folder_id": None}).ok
    assert realm.admin.patch(path, {"is_archived": True}).ok
    assert "No channel folder has that ID" in error(realm.admin.patch(
        f"/streams/{stream_id}", {"folder_id": folder_id}))
    assert realm.admin.patch(path, {"is_archived": False}).ok
    drain_events()
    updates = [e for e in _events(fetch_events, realm.member, queue_id) if e["op"] == "update"]
    assert updates == [
        {"type": "channel_folder", "op": "update", "channel_folder_id": folder_id,
         "data": {"name": "Platform", "description": "*Core*",
                  "rendered_description": "<p><em>Core</em></p>"}},
        {"type": "channel_folder", "op": "update", "channel_folder_id": folder_id,
         "data": {"is_archived": True}},
        {"type": "channel_folder", "op": "update", "channel_folder_id": folder_id,
         "data": {"is_archived": False}}]
    # Only administrators; an unknown folder is said so
    assert "administrator" in error(realm.member.patch(path, {"name": "Mine"}))
    assert error(realm.admin.patch("/channel_folders/999", {"name": "X"})) == (
        "No channel folder has that ID")
    limits = realm.member.post("/register", {"fetch_event_types": ["realm"]}).json
    assert (limits["max_channel_folder_name_length"],
            limits["max_channel_folder_description_length"]) == (60, 1024)
