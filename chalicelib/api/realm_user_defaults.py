"""PATCH /realm/user_settings_defaults: the settings new users of the organization start with."""
from __future__ import annotations

from typing import Annotated, Any

from chalicelib.actions.realm.user_defaults import do_update_user_settings_defaults
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import changes_of
from chalicelib.rules.user_settings import DefaultableUserSettings

bp = ApiBlueprint(__name__)


@bp.endpoint("/realm/user_settings_defaults", "PATCH")
def update_realm_user_settings_defaults(
    caller: Principal, *,
    settings: Annotated[dict[str, Any], changes_of(DefaultableUserSettings)],
) -> EmptyResult:
    return do_update_user_settings_defaults(caller, settings)
