"""A user's navigation views as the API shows them (GET /navigation_views, POST
/register); the writes are in actions/users/navigation_views.py.
"""
from __future__ import annotations

from typing import TypedDict

from chalicelib.models.channels import user_key
from chalicelib.models.navigation_views import NavigationView


class NavigationViewDict(TypedDict):
    fragment: str
    is_pinned: bool
    name: str | None


def _view_dict(view: NavigationView) -> NavigationViewDict:
    return {"fragment": view.fragment, "is_pinned": bool(view.is_pinned), "name": view.name}


def navigation_views_state(realm_id: int, user_id: int) -> list[NavigationViewDict]:
    """The user's views in the order they were added (one Query: a user has a few)."""
    views = sorted(NavigationView.query(user_key(realm_id, user_id)), key=lambda v: v.created)
    return [_view_dict(v) for v in views]
