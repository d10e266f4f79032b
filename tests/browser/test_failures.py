"""Failures the person sees and recovers from: a 429 is waited out and said, a 5xx
or a dropped connection gives a notice and a retry, and typed text is never lost."""
from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.browser.conftest import open_channel

RATE_LIMITED = {"result": "error", "code": "RATE_LIMIT_HIT",
                "msg": "Too many requests; slow down and retry later",
                "retry-after": 1.5}


def test_a_429_is_waited_out_and_said(person):
    member = person("member")
    page = member.page
    open_channel(page, "general")
    refused = []

    def limit_once(route):
        if route.request.method == "POST" and not refused:
            refused.append(route.request.url)
            route.fulfill(status=429, headers={"Retry-After": "2", "Content-Type": "application/json"},
                          body=json.dumps(RATE_LIMITED))
        else:
            route.continue_()

    page.route("**/api/v1/messages", limit_once)
    compose = page.get_by_label("Message", exact=True)
    compose.fill("sent after waiting")
    compose.press("Enter")
    # THEN the person is told, the text stays while waiting, then it goes by itself
    expect(page.locator(".notice", has_text="Too many requests: waiting 2 s")).to_be_visible()
    expect(compose).to_have_value("sent after waiting")
    expect(page.locator(".message", has_text="sent after waiting")).to_be_visible(timeout=10_000)
    expect(compose).to_have_value("")
    expect(page.locator(".notice", has_text="Too many requests")).to_have_count(0)
    assert len(refused) == 1


def test_a_failed_send_keeps_the_text(person):
    member = person("member")
    page = member.page
    open_channel(page, "general")
    failing = {"on": True}
    page.route("**/api/v1/messages", lambda route: route.fulfill(
        status=502, body="bad gateway") if failing["on"] and route.request.method == "POST"
        else route.continue_())
    compose = page.get_by_label("Message", exact=True)
    compose.fill("do not lose me")
    compose.press("Enter")
    # THEN an error says so, and the text is still in the box
    expect(page.get_by_role("alert")).to_contain_text("Not sent")
    expect(page.locator(".notice", has_text="502")).to_be_visible()
    expect(compose).to_have_value("do not lose me")
    # AND the same text sends once the server is back
    failing["on"] = False
    compose.press("Enter")
    expect(page.locator(".message", has_text="do not lose me")).to_be_visible()
    expect(compose).to_have_value("")
    # AND a dropped connection is the same story
    page.route("**/api/v1/messages", lambda route: route.abort("connectionreset")
               if route.request.method == "POST" else route.continue_())
    compose.fill("still here after a drop")
    compose.press("Enter")
    expect(page.locator(".notice", has_text="connection")).to_be_visible()
    expect(compose).to_have_value("still here after a drop")


def test_a_5xx_on_a_read_is_retried_with_a_notice(person):
    member = person("member")
    page = member.page
    failures = []

    def fail_twice(route):
        if len(failures) < 2:
            failures.append(route.request.url)
            route.fulfill(status=503, body="unavailable")
        else:
            route.continue_()

    page.route("**/api/v1/messages?*", fail_twice)
    open_channel(page, "engineering")
    # THEN a notice says it is retrying (the page stays usable), then the messages come
    expect(page.locator(".notice", has_text="503")).to_be_visible()
    expect(page.get_by_label("Message", exact=True)).to_be_editable()
    expect(page.locator(".message").first).to_be_visible(timeout=15_000)
    expect(page.locator(".notice", has_text="503")).to_have_count(0)
    assert len(failures) == 2
