"""A message that arrives while a narrow's first page is still on its way shows once the
page lands (a slow GET /messages must not hide it until a reload): the race a loaded
machine once made of tests/browser/test_chat_live.py."""
from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from playwright.sync_api import APIResponse, Route, expect

from tests.browser.conftest import open_channel, send


def _message_reads(url: str) -> bool:
    return "/api/v1/messages?" in url


def test_a_message_sent_while_the_channel_loads_shows_when_it_has_loaded(person, web_stack):
    owner, member = person("owner"), person("member")
    held: list[tuple[Route, APIResponse]] = []
    holding = [True]

    def hold_reads(route: Route) -> None:
        if holding[0] and route.request.method == "GET":
            # Asked of the server now, handed to the page below, once the message has
            # been sent and its event has arrived.
            # (Chromium finds *.localhost itself; the fetch beside it needs the address.)
            url = urlsplit(route.request.url)
            held.append((route, route.fetch(
                url=urlunsplit(url._replace(netloc=f"127.0.0.1:{url.port}")),
                headers={**route.request.headers, "host": url.netloc})))
        else:
            route.continue_()

    # GIVEN the member opens #general, and its first page is slow to come
    member.page.route(_message_reads, hold_reads)
    open_channel(member.page, "general")
    for _ in range(50):
        if held:
            break
        member.page.wait_for_timeout(100)
    assert held, "the channel's first page was never asked for"
    # WHEN a message arrives meanwhile (its event reaches the member's client first)
    send(web_stack, owner, "general", "arrivals", "Sent while the page loads")
    expect(member.page.get_by_role("link", name=re.compile(r"^arrivals 1 unread"))).to_be_visible()
    holding[0] = False
    for route, response in held:
        route.fulfill(response=response)
    # THEN once the page has landed, the message is in the list, without a reload
    expect(member.page.locator(".message", has_text="Sent while the page loads")).to_be_visible()
