"""User statuses: POST /users/me/status, POST and GET /users/{user_id}/status (§4.9, §4.10)."""
from __future__ import annotations

from chalicelib.actions.users.status import (
    StatusChange,
    UserStatusResult,
    check_update_own_status,
    check_update_user_status,
    get_user_status,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/users/me/status", "POST")
def update_status(caller: Principal, *, status_text: str | None = None,
                  emoji_name: str | None = None, emoji_code: str | None = None,
                  reaction_type: str | None = None, away: bool | None = None
                  ) -> EmptyResult:
    return check_update_own_status(caller, StatusChange(
        status_text=status_text, emoji_name=emoji_name, emoji_code=emoji_code,
        reaction_type=reaction_type, away=away))


@bp.endpoint("/users/{user_id}/status", "POST")
def update_user_status(caller: Principal, *, user_id: int, status_text: str | None = None,
                       emoji_name: str | None = None, emoji_code: str | None = None,
                       reaction_type: str | None = None) -> EmptyResult:
    return check_update_user_status(caller, user_id, StatusChange(
        status_text=status_text, emoji_name=emoji_name, emoji_code=emoji_code,
        reaction_type=reaction_type))


@bp.endpoint("/users/{user_id}/status", "GET")
def get_status(caller: Principal, *, user_id: int) -> UserStatusResult:
    return get_user_status(caller, user_id)
