"""POST /register's `navigation_views` (feature level 390)."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.users.reads.navigation_views import NavigationViewDict, navigation_views_state
from chalicelib.registration.state.context import StateContext


class NavigationViewsState(TypedDict, total=False):
    """Present when `navigation_view` is among the fetch types."""

    navigation_views: list[NavigationViewDict]


def user_navigation_views_state(ctx: StateContext) -> NavigationViewsState:
    return {"navigation_views": navigation_views_state(ctx.caller.realm_id, ctx.caller.user_id)}
