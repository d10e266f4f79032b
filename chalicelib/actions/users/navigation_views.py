"""Navigation views (feature level 390): which views a user pins to the sidebar, and the
custom views they name.

A built-in view (inbox, recent, feed, ...) is only pinned or unpinned; a custom view is any
other URL fragment and needs a name. Fragments and names are unique per user. Each change
and its `navigation_view` event, sent only to the owner's queues, are one transaction.
"""
from __future__ import annotations

import time
from typing import Literal, TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.update import Action

from chalicelib.actions.users.reads.navigation_views import (
    NavigationViewDict,
    _view_dict,
    navigation_views_state,
)
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channels import user_key
from chalicelib.models.navigation_views import NavigationView

# The reference's built-in views: they have fixed names, so they take none.
BUILT_IN_FRAGMENTS = frozenset({
    "inbox", "recent", "feed", "drafts", "narrow/has/reaction/sender/me",
    "narrow/is/mentioned", "narrow/is/starred"})
# A range key holds at most 1 KB; no useful fragment comes near it.
MAX_FRAGMENT_BYTES = 1000


class NavigationViewsResult(TypedDict):
    navigation_views: list[NavigationViewDict]


class NavigationViewChanges(TypedDict, total=False):
    is_pinned: bool
    name: str


class NavigationViewAddEvent(TypedDict):
    type: Literal["navigation_view"]
    op: Literal["add"]
    navigation_view: NavigationViewDict


class NavigationViewUpdateEvent(TypedDict):
    type: Literal["navigation_view"]
    op: Literal["update"]
    fragment: str
    data: NavigationViewChanges


class NavigationViewRemoveEvent(TypedDict):
    type: Literal["navigation_view"]
    op: Literal["remove"]
    fragment: str


def _checked_fragment(fragment: str) -> str:
    fragment = fragment.strip()
    if not fragment:
        raise ApiError("fragment cannot be empty.")
    if len(fragment.encode()) > MAX_FRAGMENT_BYTES:
        raise ApiError(f"fragment is too long (limit: {MAX_FRAGMENT_BYTES} bytes).")
    return fragment


def _checked_name(fragment: str, name: str | None) -> str | None:
    if name is None:
        return None
    name = name.strip()
    if fragment in BUILT_IN_FRAGMENTS:
        raise ApiError("A built-in view keeps its own name.")
    if not name:
        raise ApiError("name cannot be empty.")
    return name


def _already_exists() -> ApiError:
    return ApiError("You already have a navigation view with this fragment or name.")


def _does_not_exist() -> ApiError:
    # As the reference: HTTP 404, with the code BAD_REQUEST.
    return ApiError("You have no navigation view with this fragment.", http_status=404)


def _name_taken(caller: Principal, name: str | None, fragment: str) -> bool:
    return name is not None and any(
        v["name"] == name and v["fragment"] != fragment
        for v in navigation_views_state(caller.realm_id, caller.user_id))


def do_add_navigation_view(caller: Principal, fragment: str, is_pinned: bool,
                           name: str | None) -> EmptyResult:
    fragment = _checked_fragment(fragment)
    name = _checked_name(fragment, name)
    if fragment not in BUILT_IN_FRAGMENTS and name is None:
        raise ApiError("A custom view needs a name.")
    if _name_taken(caller, name, fragment):
        raise _already_exists()
    view = NavigationView(user_key(caller.realm_id, caller.user_id), fragment,
                          is_pinned=is_pinned, name=name, created=int(time.time() * 1000))
    try:
        with transaction() as tx:
            tx.save(view, condition=NavigationView.fragment.does_not_exist())
            added: NavigationViewAddEvent = {"type": "navigation_view", "op": "add",
                                             "navigation_view": _view_dict(view)}
            add_event(tx, caller.realm_id, added, to_users([caller.user_id]))
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        raise _already_exists() from None
    return {}


def do_update_navigation_view(caller: Principal, fragment: str, is_pinned: bool | None,
                              name: str | None) -> EmptyResult:
    fragment = _checked_fragment(fragment)
    name = _checked_name(fragment, name)
    if _name_taken(caller, name, fragment):
        raise _already_exists()
    changes: NavigationViewChanges = {}
    actions: list[Action] = []
    if name is not None:
        changes["name"] = name
        actions.append(NavigationView.name.set(name))
    if is_pinned is not None:
        changes["is_pinned"] = is_pinned
        actions.append(NavigationView.is_pinned.set(is_pinned))
    key = NavigationView(user_key(caller.realm_id, caller.user_id), fragment)
    try:
        with transaction() as tx:
            if actions:
                tx.update(key, actions=actions, condition=NavigationView.fragment.exists())
            else:   # nothing to change: the view must still exist, as in the reference
                tx.condition_check(NavigationView, key.user_key, fragment,
                                   condition=NavigationView.fragment.exists())
            updated: NavigationViewUpdateEvent = {"type": "navigation_view", "op": "update",
                                                  "fragment": fragment, "data": changes}
            add_event(tx, caller.realm_id, updated, to_users([caller.user_id]))
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        raise _does_not_exist() from None
    return {}


def do_remove_navigation_view(caller: Principal, fragment: str) -> EmptyResult:
    fragment = _checked_fragment(fragment)
    key = NavigationView(user_key(caller.realm_id, caller.user_id), fragment)
    try:
        with transaction() as tx:
            tx.delete(key, condition=NavigationView.fragment.exists())
            removed: NavigationViewRemoveEvent = {"type": "navigation_view", "op": "remove",
                                                  "fragment": fragment}
            add_event(tx, caller.realm_id, removed, to_users([caller.user_id]))
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        raise _does_not_exist() from None
    return {}
