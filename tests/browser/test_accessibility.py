"""axe-core finds no serious or critical violation on any main view, and every action
has a key (docs/web-client.md lists them)."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import REPO_ROOT, api, open_channel, org_url, screenshot

AXE = REPO_ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page: Page) -> list[dict]:
    """The serious and critical findings of axe-core (from npm, pinned in web/) here."""
    if not AXE.exists():
        pytest.fail("axe-core is not installed: `make web` installs web/'s packages")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    return [v for v in found if v["impact"] in ("serious", "critical")]


def test_main_views_have_no_serious_accessibility_violations(browser, web_stack):
    # (The axe script is added as a tag: this context lets it past the page's CSP.)
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 800})
    context.set_default_timeout(15_000)
    page = context.new_page()
    account = web_stack.accounts()["admin"]
    api(web_stack, account, "POST", "/messages", type="stream", to="general",
        topic="accessibility", content="A message with **bold**, `code` and a [link](https://example.com).")
    views = {}
    try:
        page.goto(f"{org_url(web_stack)}/")
        expect(page.get_by_label("Email")).to_be_visible()
        views["login"] = axe_violations(page)
        screenshot(page, "login")
        page.reload()
        page.get_by_label("Email").fill(account["email"])
        page.get_by_label("Password").fill(account["password"])
        page.get_by_role("button", name="Log in").click()
        expect(page.locator(".connection")).to_have_text("Live")
        expect(page.get_by_role("heading", name="Recent conversations")).to_be_visible()
        expect(page.locator(".conversations li").first).to_be_visible()
        views["inbox"] = axe_violations(page)
        open_channel(page, "general")
        expect(page.locator(".message").first).to_be_visible()
        views["channel"] = axe_violations(page)
        page.locator(".message").last.click()
        page.keyboard.press(":")
        expect(page.get_by_role("dialog", name="Add a reaction")).to_be_visible()
        views["emoji picker"] = axe_violations(page)
        page.keyboard.press("Escape")
        box = page.get_by_role("combobox", name="Search messages")
        box.fill("bold")
        box.press("Enter")
        expect(page.locator(".message .highlight").first).to_be_visible()
        views["search"] = axe_violations(page)
        page.goto(f"{org_url(web_stack)}/#settings")
        expect(page.get_by_role("heading", name="Invite people")).to_be_visible()
        views["settings"] = axe_violations(page)
        screenshot(page, "settings")
        page.keyboard.press("?")
        expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_be_visible()
        views["keyboard help"] = axe_violations(page)
        screenshot(page, "keys")
    finally:
        context.close()
    assert {view: found for view, found in views.items() if found} == {}


def test_every_action_is_reachable_by_keyboard(person, web_stack):
    member = person("member")
    page = member.page
    keyboard = page.keyboard
    # Inbox (i), settings (,), help (?), all by keys
    keyboard.press(",")
    expect(page.get_by_role("heading", name="Settings", exact=True)).to_be_visible()
    keyboard.press("i")
    expect(page.get_by_role("heading", name="Inbox", exact=True)).to_be_visible()
    keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(dialog).to_be_visible()
    keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    # A channel from the sidebar with Tab and Enter
    page.get_by_role("navigation").get_by_role("link", name=re.compile("^#general")).focus()
    keyboard.press("Enter")
    expect(page.locator(".narrow-header h1")).to_have_text("#general")
    # Compose (c), a topic, send (Enter)
    keyboard.press("c")
    compose = page.get_by_label("Message", exact=True)
    expect(compose).to_be_focused()
    keyboard.press("Shift+Tab")
    keyboard.type("keyboard only")
    keyboard.press("Tab")
    keyboard.type("Typed without a mouse")
    keyboard.press("Alt+p")
    expect(page.get_by_role("region", name="Preview")).to_contain_text("Typed without a mouse")
    keyboard.press("Enter")
    mine = page.locator(".message", has_text="Typed without a mouse")
    expect(mine).to_be_visible()
    # Leave the box (Esc), select the newest message (k), react (:), edit (e), delete
    keyboard.press("Escape")
    keyboard.press("End")
    expect(mine).to_be_focused()
    keyboard.press(":")
    expect(page.get_by_label("Find an emoji")).to_be_focused()
    keyboard.type("rocket")
    keyboard.press("Enter")
    expect(mine.locator(".reaction")).to_have_attribute("aria-label", "rocket: 1")
    mine.focus()
    keyboard.press("e")
    editor = page.get_by_label("Edit message")
    expect(editor).to_be_focused()
    keyboard.press("End")
    keyboard.type(", edited")
    keyboard.press("Enter")
    expect(mine).to_contain_text("Typed without a mouse, edited")
    mine.focus()
    keyboard.press("Delete")
    expect(page.get_by_role("button", name="Delete", exact=True)).to_be_focused()
    keyboard.press("Enter")
    expect(page.locator(".message", has_text="Typed without a mouse")).to_have_count(0)
    # Mark read (Shift+R), search (/)
    keyboard.press("Shift+R")
    keyboard.press("/")
    expect(page.get_by_role("combobox", name="Search messages")).to_be_focused()
    open_channel(page, "general")
