"""The web client shows the picture the server generated for a person (level 456's
default_avatar_source "J", a new organization's default): an image loaded from the
organization's own /user_avatars/, drawn by the browser, under the page's policy."""
from __future__ import annotations

import re

from playwright.sync_api import expect

GENERATED_SRC = re.compile(r"^/user_avatars/\d+/generated/[0-9a-f]{32}\.svg\?version=\d+$")


def test_a_generated_picture_is_shown_in_the_header_and_settings(person):
    # GIVEN the demo organization, made as a new one is (its people have generated pictures)
    member = person("member")
    page = member.page
    # THEN the header's avatar is that picture, loaded and drawn
    header = page.locator("header .me img.avatar")
    expect(header).to_have_attribute("src", GENERATED_SRC)
    page.wait_for_function(
        "() => { const i = document.querySelector('header .me img.avatar');"
        " return i && i.complete && i.naturalWidth > 0; }")
    # AND settings show it and say what it is
    page.goto(page.url.split("#")[0] + "#settings")
    expect(page.locator(".settings img.avatar")).to_have_attribute("src", GENERATED_SRC)
    expect(page.locator(".settings")).to_contain_text("a pattern your organization generated")
