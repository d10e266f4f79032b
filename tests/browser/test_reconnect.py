"""The client rides out a stopped server (a notice, retries, then live again, nothing
lost) and an expired event queue (it registers again)."""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from infra.local.environment import free_port
from infra.local.launcher import start_stack
from tests.browser.conftest import api, log_in, open_channel


@pytest.fixture
def own_stack():
    """A stack of this test's own: it is stopped and started again mid-test."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        state.mkdir()
        ws_port = str(free_port())
        stack = start_stack(state, WS_PORT=ws_port)
        stack.ws_port = ws_port
        try:
            yield stack
        finally:
            if stack.process.poll() is None:
                stack.stop()


def test_reconnects_after_the_server_stops_and_starts(browser, own_stack):
    """As `make run` restarted: the push channel comes back on another port, which the
    page reads again (it registers afresh) instead of retrying the old address."""
    member = log_in(browser, own_stack, "member")
    owner = own_stack.accounts()["owner"]
    page = member.page
    try:
        open_channel(page, "general")
        # WHEN the server stops (Ctrl-C) while the page is open
        own_stack.stop()
        # THEN the page says it is reconnecting, without blocking anything
        expect(page.locator(".connection")).to_have_text("Reconnecting…")
        page.get_by_label("Message", exact=True).fill("typed while the server was down")
        # WHEN it starts again, its push channel on another port, and a message is sent
        restarted = start_stack(own_stack.state_dir, port=own_stack.port,
                                WS_PORT=str(free_port()))
        own_stack.process = restarted.process
        back = time.monotonic()
        api(own_stack, owner, "POST", "/messages", type="stream", to="general",
            topic="after restart", content="back online")
        # THEN within seconds the page is live again on the push channel (not polling)
        # and gets what was sent while it was away
        expect(page.locator(".connection")).to_have_text("Live", timeout=20_000)
        assert time.monotonic() - back < 10
        expect(page.locator(".message", has_text="back online")).to_be_visible()
        # AND what was typed is still there, and sends
        compose = page.get_by_label("Message", exact=True)
        expect(compose).to_have_value("typed while the server was down")
        compose.press("Enter")
        expect(page.locator(".message", has_text="typed while the server was down")).to_be_visible()
    finally:
        member.context.close()


def test_an_expired_queue_is_registered_again(person, web_stack):
    member = person("member")
    page = member.page
    registered = []
    page.on("response", lambda r: registered.append(r) if r.url.endswith("/api/v1/register") else None)
    open_channel(page, "general")
    # GIVEN the page's queue, found from its registration (reload to see it)
    page.reload()
    expect(page.locator(".connection")).to_have_text("Live")
    queue_id = registered[-1].json()["queue_id"]
    open_channel(page, "general")
    # WHEN the queue goes away (as after 10 minutes asleep)
    api(web_stack, member, "DELETE", "/events", queue_id=queue_id)
    # THEN the client registers again and is live with a new queue
    expect(page.locator(".notice", has_text="expired")).to_be_visible(timeout=30_000)
    expect(page.locator(".connection")).to_have_text("Live")
    assert registered[-1].json()["queue_id"] != queue_id
    # AND new messages arrive live again
    api(web_stack, web_stack.accounts()["owner"], "POST", "/messages", type="stream",
        to="general", topic="requeue", content="after the new queue")
    open_channel(page, "general")
    expect(page.locator(".message", has_text="after the new queue")).to_be_visible()


def test_long_poll_is_the_fallback_when_the_push_channel_is_unreachable(person, web_stack):
    # GIVEN a browser whose WebSocket connections all fail (a proxy that refuses them)
    member = person("member")
    page = member.page
    page.route_web_socket("**/*", lambda ws: ws.close())
    page.reload()
    # THEN the client falls back to long-polling GET /events, and messages still arrive
    expect(page.locator(".connection")).to_have_text("Live (polling)", timeout=45_000)
    open_channel(page, "general")
    api(web_stack, web_stack.accounts()["owner"], "POST", "/messages", type="stream",
        to="general", topic="polling", content="through the long-poll")
    expect(page.locator(".message", has_text="through the long-poll")).to_be_visible()

