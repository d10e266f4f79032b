"""Shared helpers for the user group tests."""
from __future__ import annotations

from typing import Any

from chalicelib.models.realms import Realm
from chalicelib.rules.realm_settings import system_group_id

EVERYONE = system_group_id("role:everyone")
MEMBERS = system_group_id("role:members")
ADMINS = system_group_id("role:administrators")
OWNERS = system_group_id("role:owners")
NOBODY = system_group_id("role:nobody")


def create(account, name: str, members: list[int] | None = None, **params: Any):
    return account.post("/user_groups/create", {"name": name, "description": f"about {name}",
                                                "members": members or [], **params})


def create_ok(account, name: str, members: list[int] | None = None, **params: Any) -> int:
    response = create(account, name, members, **params)
    assert response.ok, response.json
    return response.json["group_id"]


def groups_by_id(account, **params: Any) -> dict[int, dict[str, Any]]:
    response = account.get("/user_groups", params)
    assert response.ok, response.json
    return {g["id"]: g for g in response.json["user_groups"]}


def set_realm_settings(realm, **settings: Any) -> None:
    record = Realm.get(realm.realm_id)
    record.settings = {**(record.settings.as_dict() if record.settings else {}), **settings}
    record.save()


def is_member(account, group_id: int, user_id: int, **params: Any) -> bool:
    response = account.get(f"/user_groups/{group_id}/members/{user_id}", params)
    assert response.ok, response.json
    return response.json["is_user_group_member"]


def group_ids_of(realm, user_id: int) -> set[int]:
    """The user's reverse index: the groups they are a direct member of, as stored."""
    from chalicelib.models.users import User

    return {int(g) for g in User.get(realm.realm_id, user_id).group_ids or ()}


def assert_error(response, text: str, code: str = "BAD_REQUEST") -> None:
    assert response.status == 400 and response.json["result"] == "error", response.json
    assert response.json["code"] == code, response.json
    assert text in response.json["msg"], response.json


def group_events(drain_events, fetch_events, account, queue_id) -> list[dict[str, Any]]:
    drain_events()
    return [{k: v for k, v in e.items() if k != "id"}
            for e in fetch_events(account, queue_id) if e["type"] == "user_group"]
