"""Newer and older messages load as the person scrolls, while the page keeps only a
window of them (the benchmark scrolls 10,000; this holds the behaviour)."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import requests
from playwright.sync_api import expect

from tests.browser.conftest import api, open_channel

COUNT = 220


def test_scrolling_loads_newer_and_older_pages_and_keeps_a_window(person, web_stack):
    # GIVEN a channel with more messages than a page and a window
    owner = web_stack.accounts()["owner"]
    everyone = [a["user_id"] for a in web_stack.accounts().values()]
    api(web_stack, owner, "POST", "/users/me/subscriptions",
        subscriptions=json.dumps([{"name": "history"}]), principals=json.dumps(everyone))
    session = requests.Session()

    def send(n: int) -> None:
        session.post(f"{web_stack.url}/api/v1/messages", timeout=30,
                     auth=(owner["email"], owner["api_key"]),
                     data={"type": "stream", "to": "history", "topic": f"part {n // 100}",
                           "content": f"history line {n:03d}"}).raise_for_status()

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(send, range(COUNT)))
    member = person("member")
    page = member.page
    open_channel(page, "history")
    # THEN, all of them unread, it opens at the first unread: the oldest
    oldest = page.locator(".message", has_text="history line 000")
    expect(oldest).to_be_in_viewport()
    newest = page.locator(".message", has_text=f"history line {COUNT - 1:03d}")
    expect(newest).to_have_count(0)
    # WHEN the person scrolls down to the end, again and again
    for _ in range(200):
        if newest.count():
            break
        page.locator(".messages").evaluate("list => { list.scrollTop = list.scrollHeight; }")
        page.wait_for_timeout(100)
    page.locator(".messages").evaluate("list => { list.scrollTop = list.scrollHeight; }")
    # THEN newer pages come in, the newest message shows, and the page never held them all
    expect(newest).to_be_in_viewport()
    assert page.locator(".message").count() <= 150
    # AND what was scrolled past is read
    expect(page.locator(".message.unread")).to_have_count(0)
    # WHEN the person scrolls up to the top, again and again
    edge = page.locator(".list-edge", has_text="The beginning of this conversation")
    for _ in range(200):
        if edge.count():
            break
        page.locator(".messages").evaluate("list => { list.scrollTop = 0; }")
        page.wait_for_timeout(100)
    # THEN the oldest message is there again, under its topic, within a window
    expect(edge).to_be_visible()
    expect(oldest).to_be_visible()
    assert page.locator(".message").count() <= 150
    expect(page.locator(".recipient-bar").first).to_contain_text("part 0")
