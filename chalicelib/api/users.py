"""Users: the caller's own record, the user list, and user creation by administrators."""
from __future__ import annotations

from typing import TypedDict
from urllib.parse import unquote

from chalicelib.actions.users import users as actions
from chalicelib.actions.users.reads.access import UserDict
from chalicelib.actions.users.reads.shown import (
    access_user_by_id_or_email,
    as_requested,
)
from chalicelib.actions.users.users import OwnUserResult
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


class UsersResult(TypedDict):
    members: list[UserDict]


class UserResult(TypedDict):
    user: UserDict


class CreateUserResult(TypedDict):
    user_id: int


@bp.endpoint("/users/me", "GET")
def get_own_user(caller: Principal) -> OwnUserResult:
    return actions.get_own_user_record(caller)


@bp.endpoint("/users", "GET")
def get_users(caller: Principal, *, client_gravatar: bool = True,
              include_custom_profile_fields: bool = False,
              user_ids: Json[list[int]] | None = None) -> UsersResult:
    # user_ids (level 384): only those users, of the ones the caller can see.
    wanted = None if user_ids is None else set(user_ids)
    return {"members": [as_requested(user, client_gravatar, include_custom_profile_fields)
                        for user in actions.get_members(caller)
                        if wanted is None or user["user_id"] in wanted]}


@bp.endpoint("/users/{user_id}", "GET")
def get_user(caller: Principal, *, user_id: str, client_gravatar: bool = True,
             include_custom_profile_fields: bool = False) -> UserResult:
    # Also the reference's GET /users/{email}: one route, an id or an email address.
    user = access_user_by_id_or_email(caller, unquote(user_id))
    return {"user": as_requested(actions.user_api_dict(user, viewer=caller), client_gravatar,
                                 include_custom_profile_fields)}


@bp.endpoint("/users", "POST")
def create_user(caller: Principal, *, email: str, password: str = "",
                full_name: str) -> CreateUserResult:
    user = actions.check_create_user(caller, email=email, full_name=full_name,
                                     password=password)
    return {"user_id": user.user_id}
