"""PATCH /settings: the current user's personal settings (§4.2)."""
from __future__ import annotations

from typing import Annotated, Any

from chalicelib.actions.users.bulk_settings import update_others_settings
from chalicelib.actions.users.settings import update_own_settings
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json, changes_of
from chalicelib.rules.user_settings import UserSettings

bp = ApiBlueprint(__name__)


@bp.endpoint("/settings", "PATCH")
def update_settings(
    caller: Principal, *,
    full_name: str | None = None,
    email: str | None = None,
    old_password: str | None = None,
    new_password: str | None = None,
    target_users: Json[dict[str, Any]] | None = None,
    settings: Annotated[dict[str, Any], changes_of(UserSettings)],
) -> EmptyResult:
    account = {"full_name": full_name, "email": email, "old_password": old_password,
               "new_password": new_password}
    if target_users is not None:   # administrators, for others (level 444)
        return update_others_settings(caller, target_users, account, settings)
    return update_own_settings(caller, account, settings)
