"""Linkifiers: GET/PATCH /realm/linkifiers and the legacy-named /realm/filters writes."""
from __future__ import annotations

from chalicelib.actions.realm import linkifiers as actions
from chalicelib.actions.realm.linkifiers import AddLinkifierResult, LinkifiersResult
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/realm/linkifiers", "GET")
def get_linkifiers(caller: Principal) -> LinkifiersResult:
    return actions.get_linkifiers(caller)


@bp.endpoint("/realm/linkifiers", "PATCH")
def reorder_linkifiers(caller: Principal, *,
                       ordered_linkifier_ids: Json[list[int]]) -> EmptyResult:
    return actions.do_reorder_linkifiers(caller, ordered_linkifier_ids)


@bp.endpoint("/realm/filters", "POST")
def add_linkifier(caller: Principal, *, pattern: str, url_template: str) -> AddLinkifierResult:
    return actions.check_add_linkifier(caller, pattern, url_template)


@bp.endpoint("/realm/filters/{filter_id}", "PATCH")
def update_linkifier(caller: Principal, *, filter_id: int, pattern: str,
                     url_template: str) -> EmptyResult:
    return actions.do_update_linkifier(caller, filter_id, pattern, url_template)


@bp.endpoint("/realm/filters/{filter_id}", "DELETE")
def remove_linkifier(caller: Principal, *, filter_id: int) -> EmptyResult:
    return actions.do_remove_linkifier(caller, filter_id)
