"""Emoji identification (§2.2): the name table and the name/code/type checks."""
from __future__ import annotations

import pytest

from chalicelib.rules.emoji import (
    CustomEmoji,
    EmojiData,
    EmojiError,
    builtin_emoji_data,
    check_emoji,
    codepoint_to_name,
    emoji_code,
    is_builtin_emoji_name,
    name_to_codepoint,
)


def test_codes_are_dash_separated_lowercase_hex_without_fe0f():
    assert emoji_code("😀") == "1f600"
    assert emoji_code("🇺🇸") == "1f1fa-1f1f8"
    assert emoji_code("❤️") == "2764"            # U+FE0F dropped
    assert emoji_code("👩‍💻") == "1f469-200d-1f4bb"


@pytest.mark.parametrize("name, code", [
    ("grinning", "1f600"), ("grinning_face", "1f600"), ("car", "1f697"),
    ("heart", "2764"), ("us", "1f1fa-1f1f8"), ("+1", "1f44d"), ("thumbs_up", "1f44d"),
])
def test_table_maps_names_and_aliases_to_codes(name, code):
    assert name_to_codepoint()[name] == code
    assert code in codepoint_to_name()


def test_table_is_real_unicode_data_and_consistent():
    names = name_to_codepoint()
    assert len(names) > 3000
    # Every name's code is a known code, and every canonical name maps back to its code.
    assert all(code in codepoint_to_name() for code in names.values())
    assert all(names[name] == code for code, name in codepoint_to_name().items())
    assert not any("fe0f" in code for code in names.values())


def test_builtin_emoji_data():
    assert builtin_emoji_data("car") == EmojiData("1f697", "unicode_emoji")
    assert builtin_emoji_data("service") == EmojiData("service", "service_extra_emoji")
    assert builtin_emoji_data("no_such_emoji_name") is None
    assert is_builtin_emoji_name("car") and is_builtin_emoji_name("service")
    assert not is_builtin_emoji_name("green_tick")


@pytest.mark.parametrize("name, code, kind", [
    ("car", "1f697", "unicode_emoji"),
    ("heart", "2764", "unicode_emoji"),
    ("service", "service", "service_extra_emoji"),
])
def test_valid_builtin_emoji_pass(name, code, kind):
    check_emoji(name, code, kind)


@pytest.mark.parametrize("name, code, kind, msg", [
    ("car", "1f600", "unicode_emoji", "Unknown emoji name."),       # name of another code
    ("car", "zzzz", "unicode_emoji", "Unknown emoji code."),
    ("car", "2764-fe0f", "unicode_emoji", "Unknown emoji code."),    # FE0F is not in codes
    ("nonsense", "1f697", "unicode_emoji", "Unknown emoji name."),
    ("service", "car", "service_extra_emoji", "Unknown emoji code."),
    ("car", "service", "service_extra_emoji", "Unknown emoji name."),
    ("zulip", "zulip", "zulip_extra_emoji", "Unknown emoji type."),  # the brand is renamed
    ("car", "1f697", "", "Unknown emoji type."),
    ("car", "1f697", "emoji", "Unknown emoji type."),
])
def test_invalid_builtin_emoji_raise(name, code, kind, msg):
    with pytest.raises(EmojiError, match=f"^{msg}$".replace(".", r"\.")):
        check_emoji(name, code, kind)


def test_custom_emoji_checks():
    green = CustomEmoji(7, "green_tick", deactivated=False)
    check_emoji("green_tick", "7", "realm_emoji", green)
    cases = [
        (("green_tick", "7", None), "No such custom emoji."),
        (("green_tick", "8", green), "No such custom emoji."),     # code is not its id
        (("red_tick", "7", green), "The name does not match that custom emoji."),
        (("green_tick", "7", CustomEmoji(7, "green_tick", True)),
         "That custom emoji was removed."),
    ]
    for (name, code, custom), msg in cases:
        with pytest.raises(EmojiError) as caught:
            check_emoji(name, code, "realm_emoji", custom)
        assert str(caught.value) == msg
