"""axe-core finds no serious or critical violation on any main view, for an owner, a
member and a guest, on a desktop and a phone, light and dark; and every action has a key
(docs/web-client.md lists them)."""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    REPO_ROOT,
    api,
    channel_id,
    open_channel,
    org_url,
    screenshot,
)

AXE = REPO_ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page: Page) -> list[dict]:
    """The serious and critical findings of axe-core (from npm, pinned in web/) here."""
    if not AXE.exists():
        pytest.fail("axe-core is not installed: `make web` installs web/'s packages")
    if not page.evaluate("() => !!window.axe"):   # once per page load
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    return [v for v in found if v["impact"] in ("serious", "critical")]


def log_in_for_axe(browser, web_stack, role: str, **options):
    """A context that lets the axe script past the page's CSP (it is added as a tag)."""
    context = browser.new_context(bypass_csp=True, **{**DESKTOP, **options})
    context.set_default_timeout(15_000)
    page = context.new_page()
    account = web_stack.accounts()[role]
    page.goto(f"{org_url(web_stack)}/")
    page.get_by_label("Email").fill(account["email"])
    page.get_by_label("Password").fill(account["password"])
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".connection")).to_have_text("Live")
    return context, page


@pytest.mark.parametrize("role", ["owner", "member", "guest"])
def test_main_views_have_no_serious_accessibility_violations(browser, web_stack, role):
    accounts = web_stack.accounts()
    owner = accounts["owner"]
    api(web_stack, owner, "POST", "/users/me/subscriptions",
        subscriptions=json.dumps([{"name": "general"}]),
        principals=json.dumps([accounts[r]["user_id"] for r in ("owner", "member", "guest")]))
    api(web_stack, accounts["admin"], "POST", "/messages", type="stream", to="general",
        topic="accessibility", content="A message with **bold**, `code` and a [link](https://example.com).")
    pictures = role == "owner"   # the documentation's pictures, from one pass (dark: member)
    views = {}
    context = browser.new_context(bypass_csp=True, **DESKTOP)
    page = context.new_page()
    try:
        page.goto(f"{org_url(web_stack)}/")
        expect(page.get_by_label("Email")).to_be_visible()
        views["login"] = axe_violations(page)
        if pictures:
            screenshot(page, "login")
    finally:
        context.close()
    context, page = log_in_for_axe(browser, web_stack, role)
    try:
        expect(page.get_by_role("heading", name="Recent conversations")).to_be_visible()
        expect(page.locator(".conversations li").first).to_be_visible()
        views["inbox"] = axe_violations(page)
        open_channel(page, "general")
        message = page.locator(".message", has_text="A message with").last
        expect(message).to_be_visible()
        views["channel"] = axe_violations(page)
        message.click()
        page.keyboard.press(":")
        expect(page.get_by_role("dialog", name="Add a reaction")).to_be_visible()
        views["emoji picker"] = axe_violations(page)
        if pictures:
            screenshot(page, "picker")
        page.keyboard.press("Escape")
        page.locator(".message button.sender").last.click()
        expect(page.locator(".profile-card")).to_be_visible()
        views["profile card"] = axe_violations(page)
        if pictures:
            screenshot(page, "profile")
        page.keyboard.press("Escape")
        page.get_by_role("navigation").get_by_role("link", name=re.compile("^accessibility")).click()
        expect(page.locator(".narrow-header h1")).to_contain_text("accessibility")
        views["topic"] = axe_violations(page)
        if role == "owner":
            page.get_by_role("button", name="Move or rename").click()
            expect(page.get_by_role("dialog", name="Move or rename this topic")).to_be_visible()
            views["move dialog"] = axe_violations(page)
            page.keyboard.press("Escape")
        compose = page.get_by_label("Message", exact=True)
        compose.press_sequentially("@a")
        expect(page.get_by_role("listbox", name="Suggestions")).to_be_visible()
        views["autocomplete"] = axe_violations(page)
        if pictures:
            screenshot(page, "autocomplete")
        compose.fill("")
        compose.press("Escape")
        box = page.get_by_role("combobox", name="Search messages")
        box.fill("bold")
        box.press("Enter")
        expect(page.locator(".message .highlight").first).to_be_visible()
        views["search"] = axe_violations(page)
        if pictures:
            screenshot(page, "search")
        page.goto(f"{org_url(web_stack)}/#channels")
        expect(page.get_by_role("heading", name="All channels you can see")).to_be_visible()
        views["channels"] = axe_violations(page)
        if pictures:
            screenshot(page, "channels")
        page.goto(f"{org_url(web_stack)}/#settings")
        expect(page.get_by_role("heading", name="Muted topics")).to_be_visible()
        views["settings"] = axe_violations(page)
        if pictures:
            screenshot(page, "settings")
        page.keyboard.press("?")
        expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_be_visible()
        views["keyboard help"] = axe_violations(page)
        if pictures:
            screenshot(page, "keys")
        page.keyboard.press("Escape")
        if role != "member":
            return finish(views)   # the same views dark and on a phone: once, as a member
        page.emulate_media(color_scheme="dark")
        page.goto(f"{org_url(web_stack)}/#narrow/channel/{channel_id(web_stack, 'general')}-general")
        expect(page.locator(".message").first).to_be_visible()
        views["channel, dark"] = axe_violations(page)
        screenshot(page, "dark")
    finally:
        context.close()
    context, page = log_in_for_axe(browser, web_stack, role, **{k: v for k, v in PHONE.items()
                                                               if k != "viewport"},
                                   viewport=PHONE["viewport"])
    try:
        views["phone inbox"] = axe_violations(page)
        page.get_by_role("button", name="Menu").click()
        expect(page.get_by_role("navigation", name="Conversations")).to_be_in_viewport()
        views["phone drawer"] = axe_violations(page)
        page.get_by_role("navigation").get_by_role("link", name=re.compile(r"^#general")).click()
        expect(page.locator(".message").first).to_be_visible()
        views["phone channel"] = axe_violations(page)
    finally:
        context.close()
    finish(views)


def finish(views: dict[str, list[dict]]) -> None:
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
