"""Deactivating and reactivating users (administrators)."""
from __future__ import annotations

from chalicelib.actions.users.deactivation import do_deactivate_user, do_reactivate_user
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/users/{user_id}", "DELETE")
def deactivate_user(caller: Principal, *, user_id: int,
                    deactivation_notification_comment: str | None = None) -> EmptyResult:
    return do_deactivate_user(caller, user_id, deactivation_notification_comment)


@bp.endpoint("/users/{user_id}/reactivate", "POST")
def reactivate_user(caller: Principal, *, user_id: int) -> EmptyResult:
    return do_reactivate_user(caller, user_id)
