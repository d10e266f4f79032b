"""Presence: POST /users/me/presence, GET /users/{user_id_or_email}/presence, GET /realm/presence."""
from __future__ import annotations

from typing import Literal

from chalicelib.actions.presence.reads.snapshot import (
    RealmPresenceResult,
    UpdatePresenceResult,
    UserPresenceResult,
    get_realm_presence,
    get_user_presence,
)
from chalicelib.actions.presence.report import update_own_presence
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/users/me/presence", "POST")
def update_presence(caller: Principal, *, status: Literal["active", "idle"],
                    ping_only: bool = False, new_user_input: bool = False,
                    slim_presence: bool = False, last_update_id: int | None = None,
                    history_limit_days: int | None = None) -> UpdatePresenceResult:
    # new_user_input feeds the reference's usage statistics, which are not kept here.
    return update_own_presence(caller, status=status, ping_only=ping_only,
                               slim_presence=slim_presence, last_update_id=last_update_id,
                               history_limit_days=history_limit_days)


# The path parameter is named as its siblings (/users/{user_id}/status): API Gateway
# allows one variable name per path level. It takes an id or an email, as the reference.
@bp.endpoint("/users/{user_id}/presence", "GET")
def get_presence(caller: Principal, *, user_id: str) -> UserPresenceResult:
    return get_user_presence(caller, user_id)


@bp.endpoint("/realm/presence", "GET")
def get_presence_of_realm(caller: Principal) -> RealmPresenceResult:
    return get_realm_presence(caller)
