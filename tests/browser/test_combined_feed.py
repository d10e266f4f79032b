"""The combined feed (the narrow with no terms, `#narrow`) and a search without a channel
list only the messages the person received: a public channel they are not in stays out
(issue 48), until they open that channel, whose history they may read."""
from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from tests.browser.conftest import api, channel_id, org_url


def test_the_combined_feed_leaves_out_a_channel_the_person_is_not_in(person, web_stack):
    # GIVEN, as the owner, a public channel the member is not in with three messages,
    # and one message in #general, which the member reads
    owner = web_stack.accounts()["owner"]
    api(web_stack, owner, "POST", "/users/me/subscriptions",
        subscriptions=json.dumps([{"name": "sidelines"}]))
    for n in range(3):
        api(web_stack, owner, "POST", "/messages", type="stream", to="sidelines",
            topic="aside", content=f"A sidelines note, number {n}: quokka.")
    api(web_stack, owner, "POST", "/messages", type="stream", to="general",
        topic="feed check", content="Everyone reads this quokka line.")
    member = person("member")
    page = member.page
    # WHEN the member opens the combined feed
    page.goto(f"{org_url(web_stack)}/#narrow")
    page.locator(".narrow-header h1", has_text="Messages").wait_for()
    # THEN #general's message is listed and none of the other channel's
    expect(page.locator(".message", has_text="Everyone reads this quokka line.")).to_be_visible()
    expect(page.locator(".message", has_text="sidelines note")).to_have_count(0)
    # AND a search without a channel finds only the received one
    box = page.get_by_role("combobox", name="Search messages")
    box.fill("quokka")
    box.press("Enter")
    expect(page.get_by_role("heading", name=re.compile("Search: quokka"))).to_be_visible()
    expect(page.locator(".message")).to_have_count(1)
    expect(page.locator(".message", has_text="Everyone reads")).to_be_visible()
    # AND the channel itself, opened by its address, shows its history
    sidelines = channel_id(web_stack, "sidelines")
    page.goto(f"{org_url(web_stack)}/#narrow/channel/{sidelines}-sidelines")
    expect(page.locator(".message", has_text="sidelines note")).to_have_count(3)
