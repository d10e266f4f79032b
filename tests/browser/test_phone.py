"""A phone (390×844, touch): the sidebar is a drawer, the compose box stays reachable
(above an on-screen keyboard too), every control is at least 44 px to touch, and a
message goes out."""
from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, code_block, screenshot, send

# Every control a finger may need, visible now (text inside a message is not a control).
TARGET_SIZES = """() => {
  const found = [];
  for (const el of document.querySelectorAll('button, a[href], input, select, textarea, [role=option]')) {
    if (el.closest('.content, .sr-only') || el.type === 'hidden' || el.hidden) continue;
    const box = el.type === 'radio' || el.type === 'checkbox';
    const target = box && el.closest('label') ? el.closest('label') : el;
    const r = target.getBoundingClientRect();
    const style = getComputedStyle(target);
    if (!r.width || !r.height || style.visibility === 'hidden' || r.bottom < 0 || r.top > innerHeight
        || r.right < 0 || r.left > innerWidth) continue;
    if (r.width >= 44 && r.height >= 44) continue;
    const name = (el.getAttribute('aria-label') || el.textContent).trim().slice(0, 30);
    found.push(`${el.tagName} "${name}" ${Math.round(r.width)}x${Math.round(r.height)}`);
  }
  return found;
}"""


def small_targets(page: Page) -> list[str]:
    return page.evaluate(TARGET_SIZES)


def in_viewport(page: Page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] \
        and box["x"] >= 0 and box["x"] + box["width"] <= size["width"]


def test_a_phone_opens_the_drawer_and_sends_a_message(person, web_stack):
    owner = web_stack.accounts()["owner"]
    # (a two-letter topic: its link in the message list is still a finger's size)
    send(web_stack, owner, "general", "ok", "a topic with a short name")
    send(web_stack, owner, "general", "phones", code_block(40))
    member = person("member", **PHONE)
    page = member.page
    # GIVEN the Inbox on a phone: no sidebar in the way, the search box usable
    sidebar = page.get_by_role("navigation", name="Conversations")
    expect(sidebar).not_to_be_in_viewport()
    assert page.get_by_role("combobox", name="Search messages").bounding_box()["width"] > 150
    assert small_targets(page) == []
    screenshot(page, "phone-inbox")
    # WHEN the person opens the menu, the drawer slides in with the conversations
    menu = page.get_by_role("button", name="Menu")
    menu.click()
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(sidebar).to_be_in_viewport()
    assert small_targets(page) == []
    screenshot(page, "phone-drawer")
    # AND Esc closes it, focus back on the menu button
    page.keyboard.press("Escape")
    expect(sidebar).not_to_be_in_viewport()
    expect(menu).to_be_focused()
    # WHEN a channel is chosen from the drawer, the drawer closes on the channel
    menu.click()
    sidebar.get_by_role("link", name=re.compile(r"^#general")).click()
    expect(page.locator(".narrow-header h1")).to_have_text("#general")
    expect(sidebar).not_to_be_in_viewport()
    # THEN the messages take the width; the 40-line paste is condensed
    paste = page.locator(".message", has_text="line 00")
    expect(paste.get_by_role("button", name="Show more")).to_be_visible()
    assert page.locator(".messages").bounding_box()["width"] >= 380
    assert small_targets(page) == []
    # AND the compose box and Send are on screen, and a message goes out
    page.get_by_label("Topic", exact=True).fill("phones")
    compose = page.get_by_label("Message", exact=True)
    compose.fill("Sent from a phone")
    assert in_viewport(page, "#compose-text") and in_viewport(page, ".compose button[type=submit]")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".message", has_text="Sent from a phone")).to_be_in_viewport()
    screenshot(page, "phone-channel")
    # WHEN the on-screen keyboard takes the lower half of the screen
    page.set_viewport_size({"width": 390, "height": 420})
    compose.focus()
    # THEN the compose box and Send are still above it
    expect(compose).to_be_in_viewport()
    assert in_viewport(page, "#compose-text") and in_viewport(page, ".compose button[type=submit]")
    page.set_viewport_size(PHONE["viewport"])


def test_a_phone_reacts_with_the_picker_as_a_sheet(person, web_stack):
    owner = web_stack.accounts()["owner"]
    send(web_stack, owner, "general", "phones", "React to me from a phone")
    member = person("member", **PHONE)
    page = member.page
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("navigation").get_by_role("link", name=re.compile(r"^#general")).click()
    message = page.locator(".message", has_text="React to me from a phone")
    # WHEN the person taps the message, then its react button
    message.tap()
    message.get_by_role("button", name="React to this message").tap()
    picker = page.get_by_role("dialog", name="Add a reaction")
    expect(picker).to_be_in_viewport()
    # THEN the picker is a sheet across the bottom of the screen, its emoji 44 px
    box = picker.bounding_box()
    assert box["width"] >= 388 and box["y"] + box["height"] >= 843
    picker.get_by_role("option", name="thumbs up").tap()
    expect(message.locator(".reaction")).to_have_attribute("aria-label", "thumbs up: 1")
