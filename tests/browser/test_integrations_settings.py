"""Settings → Integrations: an administrator makes an incoming-webhook bot and copies the
URL to paste into the tool, and the URL works; members see no such section."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import requests
from playwright.sync_api import expect

from tests.browser.conftest import api

PULL_REQUEST = (Path(__file__).resolve().parents[1] / "fixtures" / "integrations" / "github"
                / "pull_request__opened.json").read_bytes()


def test_an_administrator_makes_a_url_that_a_tool_can_post_to(person, web_stack):
    admin = person("admin")
    page = admin.page
    # WHEN the administrator makes a GitHub bot for #general in settings
    page.keyboard.press(",")
    section = page.get_by_role("region", name="Integrations")
    section.get_by_label("Integration").select_option("github")
    section.get_by_label("Channel").select_option("general")
    section.get_by_role("button", name="Create a bot and its URL").click()
    # THEN the URL to paste is shown
    field = section.get_by_label("URL to paste into the tool")
    expect(field).to_have_value(re.compile(
        r"/api/v1/external/github\?api_key=[A-Za-z0-9]{32}&stream=general$"))
    url = urlsplit(field.input_value())
    # AND a tool posting to it lands in #general (the stack's own address: the page's is
    # the organization's name on loopback, which only the browser resolves)
    answer = requests.post(f"{web_stack.url}{url.path}?{url.query}", data=PULL_REQUEST,
                           headers={"X-GitHub-Event": "pull_request",
                                    "Content-Type": "application/json"}, timeout=15)
    assert answer.status_code == 200, answer.text
    owner = web_stack.accounts()["owner"]
    [message] = api(web_stack, owner, "GET", "/messages", anchor="newest", num_before=1,
                    num_after=0, narrow='[{"operator": "channel", "operand": "general"}]',
                    apply_markdown="false")["messages"]
    assert message["subject"] == "Hello-World / PR #2 Update the README with new information."


def test_members_see_no_integrations_section(person):
    member = person("member")
    member.page.keyboard.press(",")
    expect(member.page.get_by_role("heading", name="Muted topics")).to_be_visible()
    expect(member.page.get_by_role("heading", name="Integrations")).to_have_count(0)
