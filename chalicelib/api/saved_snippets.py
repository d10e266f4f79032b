"""Saved snippets: GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{saved_snippet_id}."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.users import saved_snippets as actions
from chalicelib.actions.users.reads.saved_snippets import SavedSnippetDict, saved_snippets_state
from chalicelib.actions.users.saved_snippets import CreateSavedSnippetResult
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


class SavedSnippetsResult(TypedDict):
    saved_snippets: list[SavedSnippetDict]


@bp.endpoint("/saved_snippets", "GET")
def get_saved_snippets(caller: Principal) -> SavedSnippetsResult:
    return {"saved_snippets": saved_snippets_state(caller.realm_id, caller.user_id)}


@bp.endpoint("/saved_snippets", "POST")
def create_saved_snippet(caller: Principal, *, title: str, content: str
                         ) -> CreateSavedSnippetResult:
    return actions.do_create_saved_snippet(caller, title, content)


@bp.endpoint("/saved_snippets/{saved_snippet_id}", "PATCH")
def edit_saved_snippet(caller: Principal, *, saved_snippet_id: int, title: str | None = None,
                       content: str | None = None) -> EmptyResult:
    return actions.do_edit_saved_snippet(caller, saved_snippet_id, title, content)


@bp.endpoint("/saved_snippets/{saved_snippet_id}", "DELETE")
def delete_saved_snippet(caller: Principal, *, saved_snippet_id: int) -> EmptyResult:
    return actions.do_delete_saved_snippet(caller, saved_snippet_id)
