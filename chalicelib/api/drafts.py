"""Server-stored drafts: GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}."""
from __future__ import annotations

from typing import Any

from chalicelib.actions.messages import drafts as actions
from chalicelib.actions.messages.drafts import CreateDraftsResult, DraftsResult
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/drafts", "GET")
def list_drafts(caller: Principal) -> DraftsResult:
    return actions.get_drafts(caller)


@bp.endpoint("/drafts", "POST")
def create_drafts(caller: Principal, *, drafts: Json[list[Any]]) -> CreateDraftsResult:
    return actions.create_drafts(caller, drafts)


@bp.endpoint("/drafts/{draft_id}", "PATCH")
def edit_draft(caller: Principal, *, draft_id: int, draft: Json[dict[str, Any]]
               ) -> EmptyResult:
    return actions.edit_draft(caller, draft_id, draft)


@bp.endpoint("/drafts/{draft_id}", "DELETE")
def delete_draft(caller: Principal, *, draft_id: int) -> EmptyResult:
    return actions.delete_draft(caller, draft_id)
