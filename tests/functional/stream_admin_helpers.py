"""Shared helpers for the channel administration tests (PATCH and DELETE /streams/{id})."""
from __future__ import annotations

from typing import Any

from chalicelib.models.realms import Realm
from chalicelib.rules.realm_settings import system_group_id

ADMINS = system_group_id("role:administrators")
MEMBERS = system_group_id("role:members")
MODERATORS = system_group_id("role:moderators")
EVERYONE = system_group_id("role:everyone")
NOBODY = system_group_id("role:nobody")


def stream(account, stream_id: int) -> dict[str, Any]:
    """GET /streams/{id}; for administrators also `is_default`, as GET /streams shows it
    when asked."""
    response = account.get(f"/streams/{stream_id}")
    assert response.ok, response.json
    if account.role > 200:
        return response.json["stream"]
    listed = account.get("/streams", {"include_default": True, "include_all_active": True,
                                      "exclude_archived": False})
    assert listed.ok, listed.json
    [default] = [s["is_default"] for s in listed.json["streams"]
                 if s["stream_id"] == stream_id]
    return {**response.json["stream"], "is_default": default}


def patch(account, stream_id: int, **params: Any):
    return account.patch(f"/streams/{stream_id}", params)


def error(response, code: str = "BAD_REQUEST") -> str:
    assert response.json["result"] == "error", response.json
    assert response.json["code"] == code, response.json
    assert response.status == (409 if code in ("CONFLICT", "CHANNEL_ALREADY_EXISTS")
                               else 400), response.json
    return response.json["msg"]


def stream_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "id"} for e in events
            if e["type"] in ("stream", "default_streams")]


def set_realm_settings(realm_id: int, **settings: Any) -> None:
    realm = Realm.get(realm_id)
    realm.update(actions=[Realm.settings.set({**realm.settings.as_dict(), **settings})])


def only(*user_ids: int) -> dict[str, list[int]]:
    """An anonymous group of these users."""
    return {"direct_members": sorted(user_ids), "direct_subgroups": []}


def folder(account, name: str = "Engineering") -> int:
    response = account.post("/channel_folders/create", {"name": name})
    assert response.ok, response.json
    return response.json["channel_folder_id"]
