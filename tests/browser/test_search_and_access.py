"""Search with the narrow language (suggestions, highlighted matches), and a guest who
cannot see a channel they are not in."""
from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from tests.browser.conftest import api, channel_id, org_url, screenshot


def test_search_suggests_and_finds_a_word(person, web_stack):
    owner = web_stack.accounts()["owner"]
    api(web_stack, owner, "POST", "/messages", type="stream", to="engineering",
        topic="search test", content="The flamingo migration finished overnight.")
    api(web_stack, owner, "POST", "/messages", type="stream", to="general",
        topic="search test", content="Nothing to see here.")
    member = person("member")
    page = member.page
    # WHEN the member presses / and types an operator's start
    page.keyboard.press("/")
    box = page.get_by_role("combobox", name="Search messages")
    expect(box).to_be_focused()
    box.press_sequentially("chan")
    # THEN the operator is suggested; then the channels it takes
    expect(page.get_by_role("option", name=re.compile("channel:"))).to_be_visible()
    box.press("Tab")
    expect(box).to_have_value("channel:")
    box.press_sequentially("eng")
    suggestion = page.get_by_role("option", name=re.compile("Channel #engineering"))
    expect(suggestion).to_be_visible()
    box.press("ArrowDown")
    box.press("Tab")
    expect(box).to_have_value("channel:engineering ")
    # WHEN a word follows and Enter searches
    box.press_sequentially("flamingo")
    box.press("Enter")
    # THEN the matching message is listed with the word highlighted, and only it
    result = page.locator(".message", has_text="migration finished")
    expect(result.locator(".highlight")).to_have_text(re.compile("flamingo", re.I))
    expect(page.locator(".message")).to_have_count(1)
    heading = page.get_by_role("heading", name=re.compile("Search: channel:engineering flamingo"))
    expect(heading).to_be_visible()
    screenshot(page, "search")
    # AND a word nobody wrote finds nothing
    box.fill("xylophoneword")
    box.press("Enter")
    expect(page.locator(".list-edge")).to_have_text("No messages here yet.")


def test_a_guest_cannot_see_a_channel_they_are_not_in(person, web_stack):
    owner = web_stack.accounts()["owner"]
    api(web_stack, owner, "POST", "/messages", type="stream", to="engineering",
        topic="secret", content="Only for engineering: the okapi plan.")
    # GIVEN a guest subscribed to #general only
    guest_id = web_stack.accounts()["guest"]["user_id"]
    api(web_stack, owner, "POST", "/users/me/subscriptions",
        subscriptions=json.dumps([{"name": "general"}]), principals=json.dumps([guest_id]))
    guest = person("guest")
    page = guest.page
    sidebar = page.get_by_role("navigation")
    # THEN the guest's sidebar lists #general but not #engineering
    expect(sidebar.get_by_role("link", name=re.compile("^#general"))).to_be_visible()
    expect(sidebar.get_by_role("link", name=re.compile("^#engineering"))).to_have_count(0)
    # AND opening it by address shows an error and none of its messages
    engineering = channel_id(web_stack, "engineering")
    page.goto(f"{org_url(web_stack)}/#narrow/channel/{engineering}-engineering")
    expect(page.get_by_role("alert")).to_contain_text("Could not load messages")
    expect(page.locator(".message")).to_have_count(0)
    # AND searching for its words finds nothing
    box = page.get_by_role("combobox", name="Search messages")
    box.fill("okapi")
    box.press("Enter")
    expect(page.get_by_role("heading", name="Search: okapi")).to_be_visible()
    expect(page.locator(".list-edge")).to_have_text("No messages here yet.")
    assert "okapi plan" not in page.content()
