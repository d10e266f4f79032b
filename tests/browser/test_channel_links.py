"""Channel and topic links in messages: the server renders `#**channel**` and
`#**channel>topic**` as links, and following them (by click or by keyboard) opens the
channel's or the topic's view inside the page, a channel the reader is not in included."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import new_channel, open_channel, send


def test_channel_and_topic_links_open_their_views_in_the_page(person, web_stack):
    owner = web_stack.accounts()["owner"]
    # GIVEN a channel of the member's with a topic whose name has a dot and a space, and
    # a public channel the member is not in
    room = new_channel(web_stack, "linked room")
    send(web_stack, owner, "linked room", "v1.2 plans", "The plan so far.")
    outside = new_channel(web_stack, "outside news", roles=("owner",))
    send(web_stack, owner, "outside news", "bulletin", "The okapi bulletin is out.")
    member = person("member")
    page = member.page
    open_channel(page, "linked room")
    # WHEN the member sends a message linking both from the compose box
    page.get_by_label("Topic", exact=True).fill("pointers")
    compose = page.get_by_label("Message", exact=True)
    compose.fill("Read #**linked room>v1.2 plans** and #**outside news**")
    compose.press("Enter")
    # THEN the message shows them as links to the views, in the reference's addresses
    sent = page.locator(".message", has_text="Read")
    topic_link = sent.locator("a.stream-topic")
    expect(topic_link).to_have_text("#linked room > v1.2 plans")
    expect(topic_link).to_have_attribute(
        "href", re.compile(rf"^#narrow/channel/{room}-linked-room/topic/v1\.2E2\.20plans/with/\d+$"))
    channel_link = sent.locator("a.stream")
    expect(channel_link).to_have_attribute("href", f"#narrow/channel/{outside}-outside-news")
    page.evaluate("window.notReloaded = true")
    # WHEN the member clicks the topic link
    topic_link.click()
    # THEN the topic's view opens in this page (no reload), with its message
    expect(page.locator(".narrow-header h1")).to_have_text("#linked room › v1.2 plans")
    expect(page.locator(".message", has_text="The plan so far.")).to_be_visible()
    assert page.evaluate("window.notReloaded") is True
    # WHEN the member goes back and follows the channel link by keyboard
    page.go_back()
    expect(page.locator(".narrow-header h1")).to_have_text("#linked room")
    page.locator(".message", has_text="Read").locator("a.stream").focus()
    page.keyboard.press("Enter")
    # THEN the channel they are not in opens, with its messages to read
    expect(page.locator(".narrow-header h1")).to_have_text("#outside news")
    expect(page.locator(".message", has_text="okapi bulletin")).to_be_visible()
    assert page.evaluate("window.notReloaded") is True
