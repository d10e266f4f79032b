"""Navigation views (feature level 390): GET/POST /navigation_views and
PATCH/DELETE /navigation_views/{fragment}."""
from __future__ import annotations

from urllib.parse import unquote

from chalicelib.actions.users.navigation_views import (
    NavigationViewsResult,
    do_add_navigation_view,
    do_remove_navigation_view,
    do_update_navigation_view,
    navigation_views_state,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/navigation_views", "GET")
def get_navigation_views(caller: Principal) -> NavigationViewsResult:
    return {"navigation_views": navigation_views_state(caller.realm_id, caller.user_id)}


@bp.endpoint("/navigation_views", "POST")
def add_navigation_view(caller: Principal, *, fragment: str, is_pinned: Json[bool],
                        name: str | None = None) -> EmptyResult:
    return do_add_navigation_view(caller, fragment, is_pinned, name)


# A fragment such as "narrow/is/starred" comes percent-encoded in the path.
@bp.endpoint("/navigation_views/{fragment}", "PATCH")
def edit_navigation_view(caller: Principal, *, fragment: str,
                         is_pinned: Json[bool] | None = None,
                         name: str | None = None) -> EmptyResult:
    return do_update_navigation_view(caller, unquote(fragment), is_pinned, name)


@bp.endpoint("/navigation_views/{fragment}", "DELETE")
def remove_navigation_view(caller: Principal, *, fragment: str) -> EmptyResult:
    return do_remove_navigation_view(caller, unquote(fragment))
