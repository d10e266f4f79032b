"""Users: the caller's own record, the user list, and user creation by administrators."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.users import users as actions
from chalicelib.actions.users.reads.access import UserDict
from chalicelib.actions.users.reads.users import access_user_by_id
from chalicelib.actions.users.users import OwnUserResult
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

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
              include_custom_profile_fields: bool = False) -> UsersResult:
    return {"members": actions.get_members(caller)}


@bp.endpoint("/users/{user_id}", "GET")
def get_user(caller: Principal, *, user_id: int, client_gravatar: bool = True,
             include_custom_profile_fields: bool = False) -> UserResult:
    return {"user": actions.user_api_dict(access_user_by_id(caller, user_id))}


@bp.endpoint("/users", "POST")
def create_user(caller: Principal, *, email: str, password: str = "",
                full_name: str) -> CreateUserResult:
    user = actions.check_create_user(caller, email=email, full_name=full_name,
                                     password=password)
    return {"user_id": user.user_id}
