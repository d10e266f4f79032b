"""Muted users: POST and DELETE /users/me/muted_users/{muted_user_id}."""
from __future__ import annotations

from chalicelib.actions.users.muted_users import do_mute_user, do_unmute_user
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/users/me/muted_users/{muted_user_id}", "POST")
def mute_user(caller: Principal, *, muted_user_id: int) -> EmptyResult:
    do_mute_user(caller, muted_user_id)
    return {}


@bp.endpoint("/users/me/muted_users/{muted_user_id}", "DELETE")
def unmute_user(caller: Principal, *, muted_user_id: int) -> EmptyResult:
    do_unmute_user(caller, muted_user_id)
    return {}
