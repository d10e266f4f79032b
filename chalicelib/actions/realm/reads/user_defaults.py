"""The organization's defaults for new users' settings as the API shows them (POST
/register's realm_user_settings_defaults) and as a new user starts with them; the writes
are in actions/realm/user_defaults.py.
"""
from __future__ import annotations

from typing import Any

from chalicelib.core.feature_levels import at_advertised_level
from chalicelib.models.realms import Realm
from chalicelib.rules.setting_choices import (
    EMOJISET_CHOICES,
    NOTIFICATION_SOUNDS,
    shown_setting,
)
from chalicelib.rules.user_settings import DEFAULTS as SETTING_DEFAULTS

DEFAULTS: dict[str, Any] = dict(SETTING_DEFAULTS)


# Settings that describe a user rather than a preference: never a realm default.
_NOT_DEFAULTS = frozenset({"timezone"})


def stored_defaults(realm: Realm | None) -> dict[str, Any]:
    """The realm's changed defaults (what a new user's settings map starts as)."""
    if realm is None or not realm.user_settings_defaults:
        return {}
    return {k: v for k, v in realm.user_settings_defaults.as_dict().items() if k in DEFAULTS}


def realm_user_settings_defaults(realm: Realm) -> dict[str, Any]:
    """The state's shape: every default, with the choices clients show beside them."""
    values: dict[str, Any] = {k: v for k, v in DEFAULTS.items() if k not in _NOT_DEFAULTS}
    for name, value in stored_defaults(realm).items():
        values[name] = int(value) if type(DEFAULTS[name]) is int else \
            shown_setting(name, value)
    return at_advertised_level("user_setting", {
        **values, "emojiset_choices": list(EMOJISET_CHOICES),
        "available_notification_sounds": list(NOTIFICATION_SOUNDS)})
