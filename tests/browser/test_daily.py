"""The rest of a day's use: notifications and the unread count while the tab is in the
background, the dark theme, a person's card, the channel browser, and moving or
resolving a topic."""
from __future__ import annotations

import json
import re
import time

from playwright.sync_api import Page, expect

from tests.browser.conftest import api, channel_id, new_channel, open_channel, send

# The page is told it is in the background (as when another tab is in front), and the
# notifications it shows are recorded (the browser's own are granted to the context).
BACKGROUND = """() => {
  window.__notifications = [];
  const Real = window.Notification;
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notifications.push({title, body: options.body});
    }
  };
  Object.defineProperty(window.Notification, 'permission', {get: () => Real.permission});
  Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => 'hidden'});
  document.dispatchEvent(new Event('visibilitychange'));
}"""
FOREGROUND = """() => {
  delete document.visibilityState;
  document.dispatchEvent(new Event('visibilitychange'));
}"""


def test_a_direct_message_or_mention_in_a_background_tab_notifies(person, web_stack):
    owner = web_stack.accounts()["owner"]
    member = person("member")
    member.context.grant_permissions(["notifications"])
    page = member.page
    api(web_stack, member, "POST", "/mark_all_as_read")
    expect(page).to_have_title(re.compile(r"^Inbox - "))
    # GIVEN the member's tab in the background, desktop notifications allowed
    page.evaluate(BACKGROUND)
    # WHEN a direct message and a mention arrive, and a plain channel message
    api(web_stack, owner, "POST", "/messages", type="direct", to=json.dumps([member.account["user_id"]]),
        content="Are you around?")
    send(web_stack, owner, "general", "standup", "@**Mei Member** your turn")
    send(web_stack, owner, "general", "standup", "nobody in particular")
    # THEN two notifications show, with who and what
    page.wait_for_function("() => window.__notifications.length >= 2")
    page.wait_for_timeout(500)
    shown = page.evaluate("window.__notifications")
    assert [n["title"] for n in shown] == ["Olivia Owner (Direct message)",
                                          "Olivia Owner (#general › standup)"]
    assert shown[1]["body"] == "@Mei Member your turn"
    # AND the title and the tab's icon count the unread messages
    expect(page).to_have_title(re.compile(r"^\(3\) Inbox - "))
    assert page.locator("link[rel=icon]").get_attribute("data-count") == "3"
    # AND with "direct messages and mentions" only those count
    api(web_stack, member, "PATCH", "/settings", desktop_icon_count_display=2)
    expect(page).to_have_title(re.compile(r"^\(2\) Inbox - "))
    api(web_stack, member, "PATCH", "/settings", desktop_icon_count_display=1)
    # WHEN the tab comes to the front and the conversation is read, the count goes
    page.evaluate(FOREGROUND)
    api(web_stack, member, "POST", "/mark_all_as_read")
    expect(page).to_have_title(re.compile(r"^Inbox - "))
    assert page.locator("link[rel=icon]").get_attribute("data-count") == "0"


def background(page: Page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def saved_scheme(stack, who) -> int:
    """The person's color_scheme setting as the server has it (once it has it)."""
    for _ in range(50):
        settings = api(stack, who, "POST", "/register", fetch_event_types='["user_settings"]',
                       client_capabilities='{"user_settings_object": true}')["user_settings"]
        if settings["color_scheme"] != 1:
            break
        time.sleep(0.1)
    return int(settings["color_scheme"])


def test_the_dark_theme_follows_the_setting_and_the_system(person, web_stack):
    # GIVEN a system that prefers dark, and the setting on automatic
    member = person("member", color_scheme="dark")
    page = member.page
    api(web_stack, member, "PATCH", "/settings", color_scheme=1)
    expect(page.locator("body")).to_have_css("background-color", "rgb(27, 31, 36)")
    # WHEN the member chooses Light in Settings, the page is light
    page.keyboard.press(",")
    page.get_by_role("radio", name="Light").check()
    expect(page.locator("body")).to_have_css("background-color", "rgb(255, 255, 255)")
    assert saved_scheme(web_stack, member) == 3
    # AND Dark makes it dark whatever the system says; a reload keeps it from the start
    page.get_by_role("radio", name="Dark").check()
    expect(page.locator("body")).to_have_css("background-color", "rgb(27, 31, 36)")
    page.emulate_media(color_scheme="light")
    page.reload()
    expect(page.locator(".connection")).to_have_text("Live")
    assert background(page) == "rgb(27, 31, 36)"
    api(web_stack, member, "PATCH", "/settings", color_scheme=1)
    expect(page.locator("body")).to_have_css("background-color", "rgb(255, 255, 255)")


def test_a_name_opens_the_persons_card(person, web_stack):
    owner = web_stack.accounts()["owner"]
    send(web_stack, owner, "general", "cards", "Ask me about the roadmap")
    member = person("member")
    page = member.page
    open_channel(page, "general")
    message = page.locator(".message", has_text="Ask me about the roadmap")
    # WHEN the member clicks the sender's name
    message.get_by_role("button", name="Olivia Owner").click()
    card = page.get_by_role("dialog", name="About Olivia Owner")
    # THEN the card says who they are
    expect(card).to_contain_text("Owner")
    expect(card).to_contain_text(owner["email"])
    # AND Esc closes it; from it, a direct message to them is one click
    page.keyboard.press("Escape")
    expect(card).to_have_count(0)
    message.get_by_role("button", name="Olivia Owner").click()
    card.get_by_role("button", name="Send a direct message").click()
    expect(page.locator(".narrow-header h1")).to_have_text("Direct messages with Olivia Owner")
    expect(page.get_by_label(re.compile(r"^To \("))).to_have_value(owner["email"])


def test_channels_are_browsed_subscribed_and_created(person, web_stack):
    owner = web_stack.accounts()["owner"]
    api(web_stack, owner, "POST", "/users/me/subscriptions",
        subscriptions=json.dumps([{"name": "random", "description": "Off topic"}]))
    member = person("member")
    page = member.page
    sidebar = page.get_by_role("navigation")
    # WHEN the member browses the channels from the sidebar
    sidebar.get_by_role("link", name="Browse and create channels").click()
    listing = page.locator(".channel-list")
    expect(listing).to_contain_text("Off topic")
    # AND subscribes to one: it joins the sidebar
    page.get_by_role("button", name="Subscribe to #random").click()
    expect(sidebar.get_by_role("link", name=re.compile(r"^#random"))).to_be_visible()
    expect(page.get_by_role("button", name="Unsubscribe from #random")).to_be_visible()
    # AND unsubscribes again
    page.get_by_role("button", name="Unsubscribe from #random").click()
    expect(sidebar.get_by_role("link", name=re.compile(r"^#random"))).to_have_count(0)
    # WHEN they create a channel, they are in it
    page.get_by_label("Name", exact=True).fill("book-club")
    page.get_by_label("Description").fill("What we read")
    page.get_by_role("button", name="Create channel").click()
    expect(page.locator(".narrow-header h1")).to_have_text("#book-club")
    expect(sidebar.get_by_role("link", name=re.compile(r"^#book-club"))).to_be_visible()
    assert channel_id(web_stack, "book-club") > 0


def test_a_topic_is_resolved_and_moved(person, web_stack):
    owner = web_stack.accounts()["owner"]
    new_channel(web_stack, "triage")
    new_channel(web_stack, "archive-room")
    send(web_stack, owner, "triage", "login bug", "Users cannot log in")
    member = person("member")
    page = member.page
    open_channel(page, "triage")
    page.get_by_role("navigation").get_by_role("link", name=re.compile(r"^login bug")).click()
    # WHEN the member marks the topic resolved
    page.get_by_role("button", name="Mark as resolved").click()
    # THEN the topic is renamed with the reference's mark, and the view follows it
    expect(page.locator(".narrow-header h1")).to_have_text("#triage › ✔ login bug")
    expect(page.locator(".message", has_text="Users cannot log in")).to_be_visible()
    # WHEN they move it to another channel under a new name
    page.get_by_role("button", name="Move or rename").click()
    dialog = page.get_by_role("dialog", name="Move or rename this topic")
    dialog.get_by_label("Channel").select_option(label="#archive-room")
    dialog.get_by_label("Topic").fill("login bug (fixed)")
    dialog.get_by_role("button", name="Move", exact=True).click()
    # THEN its messages are there, and gone from where they were
    expect(page.locator(".narrow-header h1")).to_have_text("#archive-room › login bug (fixed)")
    expect(page.locator(".message", has_text="Users cannot log in")).to_be_visible()
    moved = api(web_stack, owner, "GET", "/messages", anchor="newest", num_before=5, num_after=0,
                narrow=json.dumps([{"operator": "channel", "operand": "triage"}]))["messages"]
    assert not [m for m in moved if "cannot log in" in m["content"]]
