"""Personal settings are declared once: the shape clients see, the defaults, the
parameters PATCH /settings accepts, and the deprecated copies all agree."""
from __future__ import annotations

import inspect

from chalicelib.api.settings import update_settings
from chalicelib.delivery.filters import (
    LEGACY_DISPLAY_SETTINGS,
    LEGACY_NOTIFICATION_SETTINGS,
)
from chalicelib.events.state.settings import (
    LegacyDisplaySettingsState,
    LegacyNotificationSettingsState,
)
from chalicelib.lib.setting_choices import INT_CHOICES, INT_RANGES, STR_CHOICES
from chalicelib.lib.user_settings import DEFAULTS, UserSettings, own_settings

ACCOUNT_PARAMETERS = {"caller", "full_name", "email", "old_password", "new_password"}


def test_defaults_cover_the_declared_shape():
    assert set(DEFAULTS) == set(UserSettings.__annotations__)


def test_patch_settings_accepts_every_setting_clients_see():
    parameters = set(inspect.signature(update_settings.__wrapped__).parameters)
    assert parameters - ACCOUNT_PARAMETERS == set(DEFAULTS)


def test_every_choice_table_names_a_setting_and_allows_its_default():
    for table in (INT_CHOICES, STR_CHOICES):
        for name, choices in table.items():
            assert DEFAULTS[name] in choices, name   # type: ignore[literal-required]
    for name, (low, high) in INT_RANGES.items():
        assert low <= DEFAULTS[name] <= high   # type: ignore[literal-required]


def test_deprecated_copies_match_the_deprecated_events():
    assert set(LegacyDisplaySettingsState.__annotations__) - {"emojiset_choices"} == \
        LEGACY_DISPLAY_SETTINGS
    assert set(LegacyNotificationSettingsState.__annotations__) - {
        "available_notification_sounds"} == LEGACY_NOTIFICATION_SETTINGS


def test_stored_values_come_back_typed_and_retired_ones_stay_out():
    from decimal import Decimal

    settings = own_settings({"color_scheme": Decimal(2), "dense_mode": True}, "Europe/Rome")
    assert settings["color_scheme"] == 2 and type(settings["color_scheme"]) is int
    assert "dense_mode" not in settings and settings["timezone"] == "Europe/Rome"
