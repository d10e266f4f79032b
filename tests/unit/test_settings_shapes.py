"""Personal settings are declared once: the shape clients see, the defaults, the
parameters PATCH /settings accepts, and the deprecated copies all agree."""
from __future__ import annotations

from typing import get_type_hints

from chalicelib.api.realm_user_defaults import update_realm_user_settings_defaults
from chalicelib.api.settings import update_settings
from chalicelib.http.params import param_specs
from chalicelib.registration.state.settings import (
    LegacyDisplaySettingsState,
    LegacyNotificationSettingsState,
)
from chalicelib.rules.setting_choices import INT_CHOICES, INT_RANGES, STR_CHOICES
from chalicelib.rules.user_settings import (
    DEFAULTS,
    LEGACY_DISPLAY_SETTINGS,
    LEGACY_NOTIFICATION_SETTINGS,
    DefaultableUserSettings,
    LegacyDisplaySettings,
    LegacyNotificationSettings,
    UserSettings,
    own_settings,
)

ACCOUNT_PARAMETERS = {"caller", "full_name", "email", "old_password", "new_password",
                      "target_users"}   # whose settings (administrators, level 444)


def test_defaults_cover_the_declared_shape():
    assert set(DEFAULTS) == set(UserSettings.__annotations__)


def test_patch_settings_accepts_every_setting_clients_see():
    # One optional wire parameter per key of UserSettings (changes_of), besides the account's.
    specs = param_specs(update_settings.__wrapped__, set())
    assert {spec.wire_name for spec in specs} - ACCOUNT_PARAMETERS == set(DEFAULTS)


def test_patch_user_settings_defaults_accepts_the_defaultable_settings():
    # One optional wire parameter per key of DefaultableUserSettings, part of UserSettings.
    specs = param_specs(update_realm_user_settings_defaults.__wrapped__, set())
    accepted = {spec.wire_name for spec in specs} - {"caller"}
    assert accepted == set(DefaultableUserSettings.__annotations__)
    assert accepted < set(DEFAULTS) and "timezone" not in accepted


def test_every_choice_table_names_a_setting_and_allows_its_default():
    for table in (INT_CHOICES, STR_CHOICES):
        for name, choices in table.items():
            assert DEFAULTS[name] in choices, name   # type: ignore[literal-required]
    for name, (low, high) in INT_RANGES.items():
        assert low <= DEFAULTS[name] <= high   # type: ignore[literal-required]


def test_each_deprecated_setting_is_a_setting_of_the_same_type():
    settings = get_type_hints(UserSettings)
    for legacy in (LegacyDisplaySettings, LegacyNotificationSettings):
        for name, kind in get_type_hints(legacy).items():
            assert settings.get(name) == kind, name


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
