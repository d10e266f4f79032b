"""What the page will not do: run script from a message, follow a javascript: link,
load script inline, or put the API key in a URL."""
from __future__ import annotations

import json

import requests
from playwright.sync_api import expect

from tests.browser.conftest import api, open_channel, org_url

HOSTILE = {
    "script": "<script>window.pwned = 'script'</script> plain script text",
    "onerror": '<img src=x onerror="window.pwned = \'onerror\'"> image with onerror',
    "javascript": ("[click me](javascript:window.pwned='link') and "
                   "<a href=\"javascript:window.pwned='a'\">this</a>"),
}


def test_the_page_is_served_with_a_strict_content_security_policy(web_stack):
    page = requests.get(f"{web_stack.url}/", timeout=10,
                        headers={"Host": org_url(web_stack).split("//")[1]})
    policy = page.headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert "<script>" not in page.text.replace(" ", "")   # no inline script to allow
    # AND a path outside the built files is refused, never read from elsewhere
    for path in ("/../Makefile", "/%2e%2e/Makefile", "/.built", "/assets/../../Makefile"):
        assert requests.get(f"{web_stack.url}{path}", timeout=10).status_code == 404, path


def test_hostile_messages_show_as_text_or_dead_links(person, web_stack):
    owner = web_stack.accounts()["owner"]
    for kind, content in HOSTILE.items():
        api(web_stack, owner, "POST", "/messages", type="stream", to="general",
            topic=f"hostile {kind}", content=content)
    member = person("member")
    page = member.page
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_channel(page, "general")
    # THEN the <script> message shows its text, and no script element came with it
    script = page.locator(".message", has_text="plain script text")
    expect(script).to_contain_text("<script>window.pwned = 'script'</script>")
    assert script.locator("script").count() == 0
    # AND the onerror message is text: no img, no handler attribute anywhere
    onerror = page.locator(".message", has_text="image with onerror")
    expect(onerror).to_contain_text('onerror="window.pwned')
    assert page.locator(".messages [onerror]").count() == 0
    # AND the javascript: links are dead (no javascript: href), clicking does nothing
    link_message = page.locator(".message", has_text="click me")
    expect(link_message).to_be_visible()
    assert page.locator(".messages a[href^='javascript' i]").count() == 0
    for anchor in link_message.locator("a").all():
        anchor.click()
    assert page.evaluate("window.pwned") is None and dialogs == []


def test_hostile_html_from_a_compromised_server_is_sanitized(person, web_stack):
    # GIVEN a server answer carrying raw HTML with script (as if its renderer had a bug)
    member = person("member")
    page = member.page

    def tamper(route):
        # (fetched here: the driver cannot resolve *.localhost as Chromium does)
        response = requests.get(route.request.url.replace("demo.localhost", "127.0.0.1"),
                                headers={"Authorization": route.request.headers["authorization"]},
                                timeout=15)
        body = response.json()
        for message in body.get("messages", []):
            message["content"] = (
                "<p>tampered<script>window.pwned='s'</script>"
                "<img src=x onerror=\"window.pwned='i'\">"
                "<a href=\"javascript:window.pwned='a'\">link</a>"
                "<svg><animate onbegin=\"window.pwned='svg'\"></animate></svg>"
                "<iframe src=\"javascript:window.pwned='f'\"></iframe></p>")
        route.fulfill(status=response.status_code, content_type="application/json",
                      body=json.dumps(body))

    page.route("**/api/v1/messages?*", tamper)
    open_channel(page, "general")
    expect(page.locator(".message", has_text="tampered").first).to_be_visible()
    page.wait_for_timeout(300)
    # THEN nothing ran, and what could run was removed before it reached the page
    assert page.evaluate("window.pwned") is None
    messages = page.locator(".messages")
    for selector in ("script", "[onerror]", "iframe", "[onbegin]", "a[href^='javascript' i]"):
        assert messages.locator(selector).count() == 0, selector


def test_the_api_key_never_goes_in_a_url(browser, web_stack):
    # GIVEN every URL the page asks for, pages, API calls and the push channel alike
    context = browser.new_context()
    page = context.new_page()
    urls = []
    page.on("request", lambda r: urls.append(r.url))
    page.on("websocket", lambda ws: urls.append(ws.url))
    member = web_stack.accounts()["member"]
    try:
        page.goto(f"{org_url(web_stack)}/")
        page.get_by_label("Email").fill(member["email"])
        page.get_by_label("Password").fill(member["password"])
        page.get_by_role("button", name="Log in").click()
        expect(page.locator(".connection")).to_have_text("Live")
        open_channel(page, "general")
        page.get_by_label("Message", exact=True).fill("checking urls")
        page.get_by_label("Message", exact=True).press("Enter")
        expect(page.locator(".message", has_text="checking urls")).to_be_visible()
        key = json.loads(page.evaluate("localStorage.getItem('teamchat.session')"))["apiKey"]
    finally:
        context.close()
    # THEN the key issued at login is in none of them (nor the password)
    assert any(url.startswith("ws://") for url in urls), urls
    assert all(key not in url and member["password"] not in url for url in urls)


def test_emoji_show_as_characters_with_their_names(person, web_stack):
    owner = web_stack.accounts()["owner"]
    api(web_stack, owner, "POST", "/messages", type="stream", to="general",
        topic="emoji", content="shipped :tada: and :no_such_emoji:")
    page = person("member").page
    open_channel(page, "general")
    message = page.locator(".message", has_text="shipped")
    # THEN the named emoji is its character, announced by name; the unknown one is text
    emoji = message.get_by_role("img", name="tada")
    expect(emoji).to_have_text("\N{PARTY POPPER}")
    expect(message).to_contain_text(":no_such_emoji:")
