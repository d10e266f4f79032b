"""The personal settings new users of an organization start with: administrators change
them (PATCH /realm/user_settings_defaults), POST /register shows them
(`realm_user_settings_defaults`), and user creation copies them.

Each changed setting is its own document path on the realm item, conditioned on the value
that was read, written with one `realm_user_settings_defaults` event per setting.
"""
from __future__ import annotations

from typing import Any, Literal, TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.condition import Condition

from chalicelib.actions.realm.reads.user_defaults import (
    DEFAULTS,
    stored_defaults,
)
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError, ConflictError
from chalicelib.core.feature_levels import withheld
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.realms import Realm
from chalicelib.rules.setting_choices import check_setting, shown_setting


class RealmUserSettingsDefaultsEvent(TypedDict):
    """One changed default, to the whole organization."""

    type: Literal["realm_user_settings_defaults"]
    op: Literal["update"]
    property: str
    value: bool | int | str


def do_update_user_settings_defaults(caller: Principal, requested: dict[str, Any]
                                     ) -> EmptyResult:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)
    for name, value in requested.items():
        check_setting(name, value)
    requested = {name: shown_setting(name, value) for name, value in requested.items()}
    realm = Realm.get(caller.realm_id)
    current = {name: shown_setting(name, value)
               for name, value in {**DEFAULTS, **stored_defaults(realm)}.items()}
    changed = {n: v for n, v in requested.items() if current.get(n) != v}
    if not changed:
        return {}
    has_map = realm.user_settings_defaults is not None
    stored = stored_defaults(realm)
    condition: Condition
    if has_map:
        actions = [Realm.user_settings_defaults[n].set(v) for n, v in changed.items()]
        condition = Realm.user_settings_defaults.exists()
        for name in changed:
            path = Realm.user_settings_defaults[name]
            condition &= (path == stored[name]) if name in stored else path.does_not_exist()
    else:
        actions = [Realm.user_settings_defaults.set(changed)]
        condition = Realm.user_settings_defaults.does_not_exist()
    try:
        with transaction() as tx:
            tx.update(Realm(caller.realm_id), actions=actions, condition=condition)
            for name, value in changed.items():
                if name in withheld("user_setting"):
                    continue   # a setting the advertised level does not know yet
                event: RealmUserSettingsDefaultsEvent = {
                    "type": "realm_user_settings_defaults", "op": "update",
                    "property": name, "value": value}
                add_event(tx, caller.realm_id, event, to_realm())
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ConflictError("The defaults changed at the same time; try again.") from None
        raise
    return {}
