"""Navigation views (feature level 390): GET/POST /navigation_views and
PATCH/DELETE /navigation_views/{fragment}."""
from __future__ import annotations

from urllib.parse import unquote

from chalice.app import Response

from chalicelib.actions.users.navigation_views import (
    NavigationViewsResult,
    do_add_navigation_view,
    do_remove_navigation_view,
    do_update_navigation_view,
)
from chalicelib.actions.users.reads.navigation_views import navigation_views_state
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ANY_CONTENT_TYPE, ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/navigation_views", "GET")
def get_navigation_views(caller: Principal) -> NavigationViewsResult:
    return {"navigation_views": navigation_views_state(caller.realm_id, caller.user_id)}


@bp.endpoint("/navigation_views", "POST")
def add_navigation_view(caller: Principal, *, fragment: str, is_pinned: Json[bool],
                        name: str | None = None) -> EmptyResult:
    return do_add_navigation_view(caller, fragment, is_pinned, name)


# A fragment such as "narrow/is/starred" comes percent-encoded in the path, or with its
# slashes as they are (the routes at the end of this module).
@bp.endpoint("/navigation_views/{fragment}", "PATCH")
def edit_navigation_view(caller: Principal, *, fragment: str,
                         is_pinned: Json[bool] | None = None,
                         name: str | None = None) -> EmptyResult:
    return do_update_navigation_view(caller, unquote(fragment), is_pinned, name)


@bp.endpoint("/navigation_views/{fragment}", "DELETE")
def remove_navigation_view(caller: Principal, *, fragment: str) -> EmptyResult:
    return do_remove_navigation_view(caller, unquote(fragment))


# The reference takes the rest of the path as the fragment (`narrow/is/alerted` may come
# with its slashes as they are), and its published example sends it so. Routes match one
# segment per parameter (Chalice's and API Gateway's), so the same two views also answer
# under /navigation_views/{fragment}/{part2}/... up to MAX_FRAGMENT_SEGMENTS segments.
# These routes are spellings of the documented operations, not operations: the OpenAPI
# generator skips them (they wrap no typed view).
MAX_FRAGMENT_SEGMENTS = 10


def _register_segment_routes(segments: int) -> None:
    names = ["fragment", *(f"part{index}" for index in range(2, segments + 1))]

    def handler(**values: str) -> Response:
        fragment = "/".join(values[name] for name in names)
        if bp.current_request.method == "PATCH":
            return edit_navigation_view(fragment=fragment)
        return remove_navigation_view(fragment=fragment)

    handler.__name__ = f"navigation_view_of_{segments}_segments"
    path = "/navigation_views/" + "/".join(f"{{{name}}}" for name in names)
    bp.route(path, methods=["PATCH", "DELETE"], content_types=ANY_CONTENT_TYPE)(handler)


for _segments in range(2, MAX_FRAGMENT_SEGMENTS + 1):
    _register_segment_routes(_segments)
