"""Settings a person needs, each saved through the API and shown again from its event."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import api, open_channel


def test_name_status_notifications_and_muted_topics(person, web_stack):
    owner = web_stack.accounts()["owner"]
    api(web_stack, owner, "POST", "/messages", type="stream", to="general",
        topic="noisy topic", content="Something to mute")
    member = person("member")
    page = member.page
    # WHEN the member mutes a topic from its header
    open_channel(page, "general")
    page.get_by_role("navigation").get_by_role("link", name=re.compile("^noisy topic")).click()
    page.get_by_role("button", name="Mute topic").click()
    expect(page.get_by_role("button", name="Unmute topic")).to_be_visible()
    # THEN it is listed in settings, where it can be unmuted
    page.keyboard.press(",")
    muted = page.get_by_role("region", name="Muted topics")
    expect(muted.get_by_role("link", name="#general › noisy topic")).to_be_visible()
    # WHEN the member changes their name, status and a notification setting
    page.locator("#full-name").fill("Mei M. Member")
    page.get_by_role("button", name="Save name").click()
    page.locator("#status-text").fill("On a train")
    page.locator("#status-emoji").select_option("rocket")
    page.get_by_role("button", name="Set status").click()
    email = page.get_by_label(re.compile("Email me about direct messages"))
    was = email.is_checked()
    email.click()
    # THEN each is saved, as the API says
    expect(page.get_by_role("region", name="Profile").get_by_role("status")).to_have_text("Saved")
    me = api(web_stack, member, "GET", "/users/me")
    assert me["full_name"] == "Mei M. Member"
    status = api(web_stack, member, "GET", f"/users/{me['user_id']}/status")["status"]
    assert status["status_text"] == "On a train" and status["emoji_name"] == "rocket"
    expect(email).to_be_checked(checked=not was)
    muted.get_by_role("button", name="Unmute").click()
    expect(muted.get_by_role("link")).to_have_count(0)
    api(web_stack, member, "PATCH", "/settings", full_name="Mei Member")


def test_an_administrator_creates_an_invitation_link(person):
    admin = person("admin")
    page = admin.page
    page.keyboard.press(",")
    page.get_by_role("button", name="Create an invitation link").click()
    expect(page.get_by_label("Invitation link")).to_have_value(re.compile(r"/join/\w+"))


def test_members_see_no_invitation_section(person):
    member = person("member")
    member.page.keyboard.press(",")
    expect(member.page.get_by_role("heading", name="Muted topics")).to_be_visible()
    expect(member.page.get_by_role("heading", name="Invite people")).to_have_count(0)
