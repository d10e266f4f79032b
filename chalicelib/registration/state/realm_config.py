"""POST /register's organization configuration added with the remaining reference
operations: linkifiers (and the legacy, always empty `realm_filters`) and the settings new
users start with."""
from __future__ import annotations

from typing import Any, TypedDict

from chalicelib.actions.realm.reads.linkifiers import CAPABILITY, LinkifierDict, linkifiers_state
from chalicelib.actions.realm.reads.user_defaults import realm_user_settings_defaults
from chalicelib.registration.state.context import StateContext


class RealmLinkifiersState(TypedDict, total=False):
    """Present when `realm_linkifiers` is among the fetch types; empty for clients without
    the `linkifier_url_template` capability."""

    realm_linkifiers: list[LinkifierDict]


class RealmFiltersState(TypedDict, total=False):
    """Present when `realm_filters` is among the fetch types: always empty (deprecated)."""

    realm_filters: list[list[int | str]]


def realm_linkifiers_state(ctx: StateContext) -> RealmLinkifiersState:
    if not ctx.capable(CAPABILITY):
        return {"realm_linkifiers": []}
    return {"realm_linkifiers": linkifiers_state(ctx.caller.realm_id)}


def realm_filters_state(ctx: StateContext) -> RealmFiltersState:
    return {"realm_filters": []}


class RealmUserSettingsDefaultsState(TypedDict, total=False):
    """Present when `realm_user_settings_defaults` is among the fetch types."""

    realm_user_settings_defaults: dict[str, Any]


def user_settings_defaults_state(ctx: StateContext) -> RealmUserSettingsDefaultsState:
    return {"realm_user_settings_defaults": realm_user_settings_defaults(ctx.realm)}
