"""Code playgrounds: POST /realm/playgrounds, DELETE /realm/playgrounds/{playground_id}."""
from __future__ import annotations

from chalicelib.actions.realm.playgrounds import (
    AddPlaygroundResult,
    check_add_realm_playground,
    do_remove_realm_playground,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/realm/playgrounds", "POST")
def add_code_playground(caller: Principal, *, name: str, pygments_language: str,
                        url_template: str) -> AddPlaygroundResult:
    return check_add_realm_playground(caller, name, pygments_language, url_template)


@bp.endpoint("/realm/playgrounds/{playground_id}", "DELETE")
def remove_code_playground(caller: Principal, *, playground_id: int) -> EmptyResult:
    return do_remove_realm_playground(caller, playground_id)
