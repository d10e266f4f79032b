"""Browser tier: the web client in Debian's headless Chromium (driven by Playwright's
Python client, with the system browser: nothing is downloaded) against a local stack
started as `make run` starts it."""
from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

from infra.local.environment import REPO_ROOT, free_port
from infra.local.launcher import LocalStack, start_stack

WEB_DIST = REPO_ROOT / "web" / "dist"
# As this machine needs them: no sandbox as root, no background connections (the closed
# network refuses them), a fresh profile per launch (Playwright gives each one its own).
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
SCREENSHOTS = Path(os.environ.get("WEB_SCREENSHOTS_DIR") or REPO_ROOT / "build" / "web-screenshots")
TIMEOUT_MS = 15_000
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
# Assertions wait as long as actions do: two workers on a shared machine are slow at times.
expect.set_options(timeout=TIMEOUT_MS)


def chromium_path() -> str:
    binary = shutil.which("chromium")
    if binary is None:
        pytest.fail("Debian's chromium is not installed: `make browser` installs it")
    if not (WEB_DIST / "index.html").exists():
        pytest.fail("the web client is not built: `make web` builds it")
    return binary


def launch(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright_driver: Playwright) -> Iterator[Browser]:
    instance = launch(playwright_driver)
    yield instance
    instance.close()


@pytest.fixture(scope="session")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    state = tmp_path_factory.mktemp("web-stack") / "state"
    state.mkdir()
    # The push channel's keepalive every 2 s (5 minutes by default): it closes the
    # connection of a queue that has gone, which the expired-queue test waits for.
    # A higher per-user limit than the default 200 a minute: the suite's people make
    # every request of several sessions within a minute (the 429 test injects its own).
    stack = start_stack(state, WS_PORT=str(free_port()),
                        LOCAL_SCHEDULE_EVENTS_KEEPALIVE_SECONDS="2",
                        RATE_LIMITS="api_by_user=2000/60")
    yield stack
    if stack.process.poll() is None:
        stack.stop()


def org_url(stack: LocalStack) -> str:
    """The demo organization's own address (Chromium resolves *.localhost to loopback)."""
    return f"http://demo.localhost:{stack.port}"


@dataclass
class Person:
    """A person at their browser: their account and the page they use."""
    account: dict[str, Any]
    context: BrowserContext
    page: Page

    @property
    def auth(self) -> tuple[str, str]:
        return self.account["email"], self.account["api_key"]


def log_in(browser: Browser, stack: LocalStack, role: str, **context_options: Any) -> Person:
    account = stack.accounts()[role]
    context = browser.new_context(**{**DESKTOP, **context_options})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto(org_url(stack) + "/")
    page.get_by_label("Email").fill(account["email"])
    page.get_by_label("Password").fill(account["password"])
    page.get_by_role("button", name="Log in").click()
    page.locator(".sidebar").wait_for(state="attached")
    page.locator(".connection", has_text="Live").wait_for()
    return Person(account, context, page)


@pytest.fixture
def person(browser: Browser, web_stack: LocalStack) -> Iterator[Callable[..., Person]]:
    opened: list[Person] = []

    def open_as(role: str, **context_options: Any) -> Person:
        who = log_in(browser, web_stack, role, **context_options)
        opened.append(who)
        return who

    yield open_as
    for who in opened:
        who.context.close()


def api(stack: LocalStack, who: dict[str, Any] | Person, method: str, path: str,
        **params: Any) -> dict[str, Any]:
    account = who.account if isinstance(who, Person) else who
    response = requests.request(method, f"{stack.url}/api/v1{path}", timeout=15,
                                auth=(account["email"], account["api_key"]),
                                **({"params": params} if method == "GET" else {"data": params}))
    assert response.ok, response.text
    return response.json()


def channel_id(stack: LocalStack, name: str) -> int:
    owner = stack.accounts()["owner"]
    return int(api(stack, owner, "GET", "/get_stream_id", stream=name)["stream_id"])


def open_channel(page: Page, name: str) -> None:
    page.get_by_role("navigation").get_by_role("link", name=re.compile(rf"^#{name}\b")).click()
    page.locator(".narrow-header h1", has_text=f"#{name}").wait_for()


def send(stack: LocalStack, who: dict[str, Any] | Person, channel: str, topic: str,
         content: str) -> int:
    """A message sent through the API (as another device would); its id."""
    return int(api(stack, who, "POST", "/messages", type="stream", to=channel, topic=topic,
                   content=content)["id"])


def list_geometry(page: Page) -> dict[str, float]:
    """Where the message list is scrolled: its scrollTop, the distance from its bottom."""
    return page.locator(".messages").evaluate(
        "l => ({top: l.scrollTop, fromBottom: l.scrollHeight - l.scrollTop - l.clientHeight,"
        " height: l.clientHeight})")


def top_in_list(page: Page, message_id: int) -> float:
    """How far below the list's top edge a message starts (negative: above it)."""
    return page.locator(f"#message-{message_id}").evaluate(
        "m => m.getBoundingClientRect().top - m.closest('.messages').getBoundingClientRect().top")


def server_unread(stack: LocalStack, who: dict[str, Any] | Person, ids: list[int]) -> set[int]:
    """Which of these messages the server has as unread for this person."""
    unread = api(stack, who, "GET", "/messages", anchor="newest", num_before=1000, num_after=0,
                 narrow='[{"operator": "is", "operand": "unread"}]')["messages"]
    return {m["id"] for m in unread} & set(ids)


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"web-{name}.png"))


def new_channel(stack: LocalStack, name: str, roles: tuple[str, ...] = ("owner", "member")) -> int:
    """A channel of this test's own, with these people in it; its id."""
    accounts = stack.accounts()
    api(stack, accounts["owner"], "POST", "/users/me/subscriptions",
        subscriptions=json.dumps([{"name": name}]),
        principals=json.dumps([accounts[role]["user_id"] for role in roles]))
    return channel_id(stack, name)


def code_block(lines: int, label: str = "line") -> str:
    """A pasted block of `lines` lines of code."""
    return "```\n" + "\n".join(f"{label} {n:02d}: some pasted output" for n in range(lines)) + "\n```"
