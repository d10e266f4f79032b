"""Small things that were wrong: the skip link on Settings, sending from the Inbox without
choosing where, a negated channel highlighted, a long topic past the sidebar, a notice
over the compose box's buttons."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import api, log_in, send


@pytest.fixture(scope="module")
def member(browser, web_stack):
    who = log_in(browser, web_stack, "member")
    yield who
    who.context.close()


def test_the_skip_link_goes_where_there_is_something(member):
    page = member.page
    page.keyboard.press(",")
    skip = page.get_by_role("link", name="Skip to the main content")
    skip.focus()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    page.keyboard.press("i")
    skip = page.get_by_role("link", name="Skip to the compose box")
    skip.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_label("Message", exact=True)).to_be_focused()
    page.keyboard.press("Escape")


def test_the_inbox_asks_where_before_sending(member, web_stack):
    page = member.page
    page.keyboard.press("i")
    before = api(web_stack, member, "GET", "/messages", anchor="newest", num_before=1,
                 num_after=0)["messages"][-1]["id"]
    page.keyboard.press("c")
    compose = page.get_by_label("Message", exact=True)
    compose.fill("Where does this go?")
    compose.press("Enter")
    expect(page.get_by_role("alert")).to_have_text("Choose a channel to send to.")
    after = api(web_stack, member, "GET", "/messages", anchor="newest", num_before=1,
                num_after=0)["messages"][-1]["id"]
    assert after == before
    expect(compose).to_have_value("Where does this go?")
    page.get_by_role("combobox", name="Channel", exact=True).select_option(label="#general")
    page.get_by_label("Topic", exact=True).fill("asked first")
    compose.press("Enter")
    expect(compose).to_have_value("")


def test_a_negated_channel_is_not_the_open_one(member):
    page = member.page
    box = page.get_by_role("combobox", name="Search messages")
    box.fill("-channel:general word")
    box.press("Enter")
    expect(page.get_by_role("heading", name="Search: -channel:general word")).to_be_visible()
    sidebar = page.get_by_role("navigation")
    expect(sidebar.locator("[aria-current=page]")).to_have_count(0)


def test_a_long_topic_stays_inside_the_sidebar(member, web_stack):
    page = member.page
    topic = "A sixty character topic name that goes on and on and on ok!!"
    assert len(topic) == 60
    send(web_stack, web_stack.accounts()["owner"], "general", topic, "long topic")
    page.get_by_role("navigation").get_by_role("link", name=re.compile(r"^#general")).click()
    link = page.get_by_role("navigation").get_by_role("link", name=re.compile("^A sixty character"))
    expect(link).to_be_visible()
    sidebar = page.locator(".sidebar").bounding_box()
    box = link.bounding_box()
    assert box["x"] + box["width"] <= sidebar["x"] + sidebar["width"]
    assert link.locator(".name").evaluate("n => n.scrollWidth > n.clientWidth")   # ellipsis
    assert link.get_attribute("title") == topic


def test_a_notice_never_covers_the_compose_buttons(member):
    page = member.page
    page.get_by_role("navigation").get_by_role("link", name=re.compile(r"^#general")).click()
    page.route("**/api/v1/messages", lambda route: route.fulfill(status=503, body="{}")
               if route.request.method == "POST" else route.continue_())
    page.get_by_label("Topic", exact=True).fill("notices")
    page.get_by_label("Message", exact=True).fill("This will fail")
    page.get_by_label("Message", exact=True).press("Enter")
    notice = page.locator(".notice.error")
    expect(notice).to_be_visible()
    covered = notice.bounding_box()
    for name in ("Send", "Preview"):
        button = page.get_by_role("button", name=name, exact=True).bounding_box()
        overlap = not (covered["x"] + covered["width"] <= button["x"]
                       or button["x"] + button["width"] <= covered["x"]
                       or covered["y"] + covered["height"] <= button["y"]
                       or button["y"] + button["height"] <= covered["y"])
        assert not overlap, name
    page.unroute("**/api/v1/messages")
    page.get_by_label("Message", exact=True).fill("")
