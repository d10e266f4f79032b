"""Deactivating and reactivating users (administrators)."""
from __future__ import annotations

from chalicelib.actions.users.deactivation import (
    DeactivationActions,
    do_deactivate_user,
    do_reactivate_user,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/users/{user_id}", "DELETE")
def deactivate_user(caller: Principal, *, user_id: int,
                    deactivation_notification_comment: str | None = None,
                    actions: Json[DeactivationActions] | None = None) -> EmptyResult:
    """`actions` (level 459): the profile's name replaced, the user's messages of the
    kinds named deleted (a background job the deactivation records)."""
    return do_deactivate_user(caller, user_id, deactivation_notification_comment, actions)


@bp.endpoint("/users/{user_id}/reactivate", "POST")
def reactivate_user(caller: Principal, *, user_id: int) -> EmptyResult:
    return do_reactivate_user(caller, user_id)
