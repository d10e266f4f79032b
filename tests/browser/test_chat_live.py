"""Two people in two browsers chat live: messages, edits, reactions, typing, read state
and deletions arrive without a reload; a session survives a reload and ends at logout."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import api, channel_id, open_channel, org_url, screenshot


def test_logging_in_from_the_root_address_finds_the_organization(browser, web_stack):
    # GIVEN the stack's root address, which names no organization
    member = web_stack.accounts()["member"]
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{web_stack.url}/")
        # WHEN the person names their organization
        page.get_by_label("Organization").fill("demo")
        page.get_by_role("button", name="Continue").click()
        # THEN they are at its own address, and log in there
        expect(page.get_by_role("heading", name="Log in to Demo Org")).to_be_visible()
        assert page.url == f"{org_url(web_stack)}/"
        page.get_by_label("Email").fill(member["email"])
        page.get_by_label("Password").fill("not the password")
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_role("alert")).to_contain_text("do not match an account")
        page.get_by_label("Password").fill(member["password"])
        page.get_by_role("button", name="Log in").click()
        expect(page.locator(".connection")).to_have_text("Live")
        # AND the session survives a reload, kept in the origin's storage
        page.reload()
        expect(page.locator(".connection")).to_have_text("Live")
        stored = page.evaluate("localStorage.getItem('teamchat.session')")
        assert member["email"] in stored
        # AND logging out forgets it
        page.goto(f"{org_url(web_stack)}/#settings")
        page.get_by_role("button", name="Log out").click()
        expect(page.get_by_role("heading", name="Log in to Demo Org")).to_be_visible()
        assert page.evaluate("localStorage.getItem('teamchat.session')") is None
        page.reload()
        expect(page.get_by_label("Password")).to_be_visible()
    finally:
        context.close()


def test_two_people_chat_live(person, web_stack):
    # GIVEN two people, each in their own browser, in #general, the member caught up
    # (what earlier tests left unread there would open it far from its newest message)
    api(web_stack, web_stack.accounts()["member"], "POST", "/mark_all_as_read")
    owner, member = person("owner"), person("member")
    for who in (owner, member):
        open_channel(who.page, "general")
    # WHEN the owner types, the member sees them typing
    owner.page.get_by_label("Topic", exact=True).fill("lunch plans")
    owner.page.get_by_label("Message", exact=True).press_sequentially("Pizza at noon?", delay=10)
    expect(member.page.locator(".typing")).to_have_text("Olivia Owner is typing…")
    # WHEN the owner sends (Enter), the member sees the message arrive, under its topic
    owner.page.get_by_label("Message", exact=True).press("Enter")
    arrived = member.page.locator(".message", has_text="Pizza at noon?")
    expect(arrived).to_be_visible()
    expect(member.page.locator(".recipient-bar").last).to_contain_text("lunch plans")
    expect(member.page.locator(".typing")).to_have_text("")
    expect(owner.page.get_by_label("Message", exact=True)).to_have_value("")
    # WHEN the owner edits it (e on the selected message, Enter saves)
    mine = owner.page.locator(".message", has_text="Pizza at noon?")
    mine.click()
    owner.page.keyboard.press("e")
    editor = owner.page.get_by_label("Edit message")
    expect(editor).to_have_value("Pizza at noon?")
    editor.fill("Pizza at **one**?")
    editor.press("Enter")
    # THEN the member sees the edit and its marker
    edited = member.page.locator(".message", has_text="Pizza at one?")
    expect(edited.locator("strong")).to_have_text("one")
    expect(edited.locator(".edited")).to_have_text("(edited)")
    # WHEN the member reacts with the emoji picker, by keyboard
    edited.click()
    member.page.keyboard.press(":")
    member.page.get_by_label("Find an emoji").fill("thumbs up")
    member.page.get_by_label("Find an emoji").press("Enter")
    # THEN the owner sees the reaction, counted
    reaction = owner.page.locator(".message", has_text="Pizza at one?").locator(".reaction")
    expect(reaction).to_have_attribute("aria-label", "thumbs up: 1")
    screenshot(member.page, "channel")
    # WHEN the member answers in a direct message
    member.page.get_by_role("radio", name="Direct message").check()
    member.page.get_by_role("combobox", name=re.compile(r"^To \(")).fill(owner.account["email"])
    member.page.get_by_label("Message", exact=True).fill("Count me in")
    member.page.get_by_label("Message", exact=True).press("Enter")
    # THEN the owner has an unread conversation with them, live
    dm_link = owner.page.get_by_role("navigation").get_by_role("link", name=re.compile("Mei Member"))
    expect(dm_link.locator(".count")).to_have_text("1")
    # WHEN the owner deletes their message, it goes from the member's view
    mine = owner.page.locator(".message", has_text="Pizza at one?")
    mine.click()
    owner.page.keyboard.press("Delete")
    owner.page.get_by_role("button", name="Delete", exact=True).click()
    expect(member.page.locator(".message", has_text="Pizza at one?")).to_have_count(0)


def test_read_state_from_another_device_arrives_live(person, web_stack):
    # GIVEN the member, in their Inbox, with unread messages in #engineering
    member = person("member")
    owner = web_stack.accounts()["owner"]
    engineering = channel_id(web_stack, "engineering")
    sent = api(web_stack, owner, "POST", "/messages", type="stream", to="engineering",
               topic="read state", content="Is the deploy done?")["id"]
    link = member.page.get_by_role("navigation").get_by_role("link", name=re.compile("^#engineering"))
    expect(link.locator(".count")).not_to_have_text("")
    screenshot(member.page, "inbox")
    # WHEN the member reads the channel on another device (marks it read through the API)
    api(web_stack, member, "POST", "/mark_stream_as_read", stream_id=engineering)
    # THEN the count goes away here without a reload
    expect(link.locator(".count")).to_have_count(0)
    # AND a message marked unread again on the other device counts again
    api(web_stack, member, "POST", "/messages/flags", messages=f"[{sent}]", op="remove",
        flag="read")
    expect(link.locator(".count")).to_have_text("1")
    # AND opening the channel marks what is seen as read, for every device
    open_channel(member.page, "engineering")
    expect(link.locator(".count")).to_have_count(0)
    unread = api(web_stack, member, "GET", "/messages", anchor="newest", num_before=5,
                 num_after=0, narrow='[{"operator": "is", "operand": "unread"}]')["messages"]
    assert sent not in [m["id"] for m in unread]
