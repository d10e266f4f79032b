"""Linkifiers: GET/PATCH /realm/linkifiers and the legacy-named /realm/filters writes."""
from __future__ import annotations

from typing import cast

from chalicelib.actions.realm import linkifiers as actions
from chalicelib.actions.realm.linkifiers import (
    AddLinkifierResult,
    LinkifiersResult,
    ReverseChanges,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json
from chalicelib.rules.reverse_linkifiers import ReverseLinkification

bp = ApiBlueprint(__name__)


@bp.endpoint("/realm/linkifiers", "GET")
def get_linkifiers(caller: Principal) -> LinkifiersResult:
    return actions.get_linkifiers(caller)


@bp.endpoint("/realm/linkifiers", "PATCH")
def reorder_linkifiers(caller: Principal, *,
                       ordered_linkifier_ids: Json[list[int]]) -> EmptyResult:
    return actions.do_reorder_linkifiers(caller, ordered_linkifier_ids)


@bp.endpoint("/realm/filters", "POST")
def add_linkifier(caller: Principal, *, pattern: str, url_template: str,
                  example_input: str = "", reverse_template: str = "",
                  alternative_url_templates: Json[list[str]] | None = None
                  ) -> AddLinkifierResult:
    return actions.check_add_linkifier(caller, pattern, url_template, ReverseLinkification(
        example_input, reverse_template, tuple(alternative_url_templates or ())))


@bp.endpoint("/realm/filters/{filter_id}", "PATCH")
def update_linkifier(caller: Principal, *, filter_id: int, pattern: str, url_template: str,
                     example_input: str | None = None, reverse_template: str | None = None,
                     alternative_url_templates: Json[list[str]] | None = None
                     ) -> EmptyResult:
    given = {"example_input": example_input, "reverse_template": reverse_template,
             "alternative_url_templates": alternative_url_templates}
    reverse = cast(ReverseChanges, {k: v for k, v in given.items() if v is not None})
    return actions.do_update_linkifier(caller, filter_id, pattern, url_template, reverse)


@bp.endpoint("/realm/filters/{filter_id}", "DELETE")
def remove_linkifier(caller: Principal, *, filter_id: int) -> EmptyResult:
    return actions.do_remove_linkifier(caller, filter_id)
