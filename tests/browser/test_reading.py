"""Reading that survives long pastes: a narrow opens at the first unread message, the view
follows the bottom when the reader is there (their own messages too), says when there is
more below when they are not, and marks read what was seen, however tall."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import (
    api,
    code_block,
    list_geometry,
    new_channel,
    open_channel,
    org_url,
    screenshot,
    send,
    server_unread,
    top_in_list,
)

UNREAD = re.compile(r"\bunread\b")


def test_a_long_paste_opens_at_the_first_unread_and_the_view_follows_the_bottom(person, web_stack):
    owner = web_stack.accounts()["owner"]
    pastes = new_channel(web_stack, "pastes")
    # GIVEN a channel the member has read, then a 40-line paste and more they have not
    member = person("member")
    for n in range(12):
        send(web_stack, owner, "pastes", "chatter", f"already read {n:02d}")
    api(web_stack, member, "POST", "/mark_all_as_read")
    first_unread = send(web_stack, owner, "pastes", "deploy", code_block(40))
    later = [send(web_stack, owner, "pastes", "deploy", f"after the paste {n:02d}")
             for n in range(16)]
    page = member.page
    # WHEN the member opens the channel's address (the first view: its page is fetched
    # before the registration, and again after it)
    page.goto("about:blank")
    page.goto(f"{org_url(web_stack)}/#narrow/channel/{pastes}-pastes")
    expect(page.locator(".connection")).to_have_text("Live")
    paste = page.locator(f"#message-{first_unread}")
    expect(paste).to_be_visible()
    # THEN it opens at the first unread message, near the top of the view (not 1,600 px up)
    assert 0 <= top_in_list(page, first_unread) <= 120
    assert list_geometry(page)["fromBottom"] > 200
    # AND the paste is condensed, with "Show more" (as the reference)
    expect(paste.get_by_role("button", name="Show more")).to_be_visible()
    # AND what is in view is read (the paste), what is below it not yet, and the view says so
    expect(paste).not_to_have_class(UNREAD)
    expect(page.locator(".message", has_text="after the paste 15")).to_have_class(UNREAD)
    below = page.get_by_role("button", name=re.compile(r"^\d+ new messages below"))
    expect(below).to_be_visible()
    screenshot(page, "reading")
    # WHEN the reader reads on to the end (End), everything is read, on the server too
    page.locator(f"#message-{first_unread}").click()
    page.keyboard.press("End")
    expect(page.locator(".message.unread")).to_have_count(0)
    page.wait_for_timeout(600)   # the batch of reads goes out after 250 ms
    assert server_unread(web_stack, member, [first_unread, *later]) == set()
    assert list_geometry(page)["fromBottom"] < 4
    # WHEN a message arrives while the reader is at the bottom, it shows without scrolling
    arrived = send(web_stack, owner, "pastes", "deploy", code_block(40, "second paste"))
    expect(page.locator(f"#message-{arrived}")).to_be_in_viewport()
    page.wait_for_function("() => { const l = document.querySelector('.messages');"
                           " return l.scrollHeight - l.scrollTop - l.clientHeight < 4; }")
    # AND so does the reader's own message
    page.get_by_label("Topic", exact=True).fill("deploy")
    page.get_by_label("Message", exact=True).fill("my own answer")
    page.get_by_label("Message", exact=True).press("Enter")
    expect(page.locator(".message", has_text="my own answer")).to_be_in_viewport()
    # WHEN the reader scrolls up and a message arrives
    page.locator(".messages").evaluate("l => { l.scrollTop = 0; }")
    expect(page.locator(".message", has_text="already read 00")).to_be_in_viewport()
    send(web_stack, owner, "pastes", "deploy", "arrived while you read history")
    # THEN the view stays where it is, and says there is something new below
    more = page.get_by_role("button", name="1 new message below")
    expect(more).to_be_visible()
    expect(page.locator(".message", has_text="already read 00")).to_be_in_viewport()
    # WHEN they take it, they are at the bottom with the new message read
    more.click()
    newest = page.locator(".message", has_text="arrived while you read history")
    expect(newest).to_be_in_viewport()
    expect(newest).not_to_have_class(UNREAD)
    expect(more).to_have_count(0)


def test_a_message_taller_than_the_view_is_marked_read(person, web_stack):
    owner = web_stack.accounts()["owner"]
    new_channel(web_stack, "tall")
    member = person("member", viewport={"width": 1280, "height": 640})
    page = member.page
    open_channel(page, "tall")
    # GIVEN an 80-line block arriving while the member reads the channel
    tall = send(web_stack, owner, "tall", "logs", code_block(80))
    message = page.locator(f"#message-{tall}")
    expect(message).to_be_visible()
    # THEN it is read, here and on the server
    expect(message).not_to_have_class(UNREAD)
    assert server_unread(web_stack, member, [tall]) == set()
    # WHEN it is shown whole (taller than the list) and marked unread on another device
    message.get_by_role("button", name="Show more").click()
    height = message.evaluate("m => m.offsetHeight")
    assert height > list_geometry(page)["height"]
    api(web_stack, member, "POST", "/messages/flags", messages=f"[{tall}]", op="remove",
        flag="read")
    # THEN the part in view counts as seen: read again, however tall
    expect(page.locator(f"#message-{tall}.unread")).to_have_count(0)
    page.wait_for_timeout(600)   # the batch of reads goes out after 250 ms
    assert server_unread(web_stack, member, [tall]) == set()
    message.get_by_role("button", name="Show less").click()
    expect(message.get_by_role("button", name="Show more")).to_be_visible()
