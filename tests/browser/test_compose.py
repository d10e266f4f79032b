"""What people reach for every day in the compose box and on a message: autocomplete for
people, groups, channels and topics, and emoji; files by button, drop and paste (images
shown inline); stars; and the emoji picker, in the top layer, by mouse."""
from __future__ import annotations

import base64
import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import api, log_in, new_channel, open_channel, send

# A 2×2 PNG (red).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAwMDAxMDAAAAjAQMB"
    "WMgvKAAAAABJRU5ErkJggg==")


@pytest.fixture(scope="module")
def member(browser, web_stack):
    """The member in #composing, shared by the tests of this file."""
    accounts = web_stack.accounts()
    new_channel(web_stack, "composing")
    send(web_stack, accounts["owner"], "composing", "plans", "Where do we start?")
    api(web_stack, accounts["owner"], "POST", "/user_groups/create", name="reviewers",
        description="Code reviewers", members=json.dumps([accounts["admin"]["user_id"]]))
    who = log_in(browser, web_stack, "member")
    open_channel(who.page, "composing")
    yield who
    who.context.close()


def suggestions(page):
    return page.get_by_role("listbox", name="Suggestions").get_by_role("option")


def test_mentions_channels_topics_and_emoji_are_suggested_as_you_type(member, web_stack):
    page = member.page
    compose = page.get_by_label("Message", exact=True)
    page.get_by_label("Topic", exact=True).fill("plans")
    # WHEN the member types @ and a name's start, people are suggested; Enter takes one
    compose.click()
    compose.press_sequentially("Thanks @oliv")
    expect(suggestions(page).first).to_contain_text("Olivia Owner")
    compose.press("Enter")
    expect(compose).to_have_value("Thanks @**Olivia Owner** ")
    # AND groups are suggested too
    compose.press_sequentially("and @review")
    expect(suggestions(page).first).to_contain_text("reviewers")
    compose.press("Tab")
    # AND # suggests channels, then > their topics
    compose.press_sequentially("see #compo")
    expect(suggestions(page).first).to_contain_text("#composing")
    compose.press("Enter")
    compose.press_sequentially(">pla")
    expect(suggestions(page).first).to_contain_text("plans")
    compose.press("Enter")
    # AND : suggests emoji by name
    compose.press_sequentially(":thumbs_u")
    expect(suggestions(page).first).to_contain_text(":thumbs_up:")
    compose.press("Enter")
    expect(compose).to_have_value(
        "Thanks @**Olivia Owner** and @*reviewers* see #**composing>plans** :thumbs_up: ")
    # AND Esc closes the suggestions without leaving the box
    compose.press_sequentially("@adm")
    expect(suggestions(page).first).to_be_visible()
    compose.press("Escape")
    expect(suggestions(page)).to_have_count(0)
    expect(compose).to_be_focused()
    compose.press("Backspace")
    compose.press("Backspace")
    compose.press("Backspace")
    compose.press("Backspace")
    compose.press("Enter")
    # THEN the message mentions them (the server renders what was inserted)
    sent = page.locator(".message", has_text="Thanks")
    expect(sent.locator(".user-mention")).to_have_text("@Olivia Owner")
    expect(sent.locator(".user-group-mention")).to_have_text("@reviewers")
    expect(sent.locator("a.stream-topic")).to_have_text("#composing > plans")
    expect(sent.get_by_role("img", name=re.compile("thumbs.up"))).to_be_visible()


def image_shown(message) -> None:
    """An image of the message is loaded (through a short-lived link: no key in its URL)."""
    image = message.locator(".content img").first   # not the sender's avatar
    expect(image).to_be_visible()
    message.page.wait_for_function("img => img.complete && img.naturalWidth === 2",
                                   arg=image.element_handle())
    assert "api_key" not in image.get_attribute("src")


def test_files_go_by_button_drop_and_paste_and_images_show_inline(member, web_stack):
    page = member.page
    compose = page.get_by_label("Message", exact=True)
    page.get_by_label("Topic", exact=True).fill("files")
    # WHEN the member attaches an image with the button and sends it
    page.locator(".compose input[type=file]").set_input_files(
        files=[{"name": "button.png", "mimeType": "image/png", "buffer": PNG}])
    expect(compose).to_have_value(re.compile(r"\[button\.png\]\(/user_uploads/\d+/\w+/button\.png\)"))
    compose.press("Enter")
    # THEN the message links the file and shows the image inline
    by_button = page.locator(".message", has_text="button.png")
    expect(by_button.get_by_role("link", name="button.png")).to_be_visible()
    image_shown(by_button)
    # WHEN a file is dropped on the compose box
    page.evaluate("""(bytes) => {
        const data = new DataTransfer();
        data.items.add(new File([new Uint8Array(bytes)], 'dropped.png', {type: 'image/png'}));
        const form = document.querySelector('.compose');
        form.dispatchEvent(new DragEvent('dragover', {dataTransfer: data, bubbles: true, cancelable: true}));
        form.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));
    }""", list(PNG))
    expect(compose).to_have_value(re.compile(r"\[dropped\.png\]\(/user_uploads/"))
    # AND another is pasted into it, with words around
    compose.press("End")
    compose.press_sequentially(" and a pasted one: ")
    page.evaluate("""(bytes) => {
        const data = new DataTransfer();
        data.items.add(new File([new Uint8Array(bytes)], 'pasted.png', {type: 'image/png'}));
        document.querySelector('#compose-text').dispatchEvent(
            new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));
    }""", list(PNG))
    expect(compose).to_have_value(re.compile(r"pasted one: \[pasted\.png\]\(/user_uploads/"))
    compose.press("Enter")
    both = page.locator(".message", has_text="pasted one")
    expect(both.locator(".upload-preview img")).to_have_count(2)
    image_shown(both)


def test_a_message_is_starred_and_listed_with_the_starred_ones(member, web_stack):
    page = member.page
    message = page.locator(".message", has_text="Where do we start?")
    # WHEN the member stars a message from its actions
    message.hover()
    message.get_by_role("button", name="Star this message").click()
    # THEN it shows as starred, counts in the sidebar, and the server has the flag
    expect(message.get_by_role("button", name="Unstar this message")).to_have_attribute(
        "aria-pressed", "true")
    starred = page.get_by_role("navigation").get_by_role("link", name=re.compile("^Starred messages"))
    expect(starred.locator(".count")).to_have_text("1")
    flagged = api(web_stack, member, "GET", "/messages", anchor="newest", num_before=10,
                  num_after=0, narrow='[{"operator": "is", "operand": "starred"}]')["messages"]
    assert [m["content"] for m in flagged] == ["<p>Where do we start?</p>"]
    # AND the starred view lists it; * unstars the selected message
    starred.click()
    expect(page.locator(".narrow-header h1")).to_have_text("Starred messages")
    listed = page.locator(".message", has_text="Where do we start?")
    listed.click()
    page.keyboard.press("*")
    expect(page.locator(".message")).to_have_count(0)
    expect(starred.locator(".count")).to_have_count(0)
    open_channel(page, "composing")


def test_the_emoji_picker_is_above_everything_and_takes_a_click(member, web_stack):
    page = member.page
    message = page.locator(".message", has_text="Where do we start?")
    message.hover()
    message.get_by_role("button", name="React to this message").click()
    picker = page.get_by_role("dialog", name="Add a reaction")
    expect(picker).to_be_visible()
    # THEN it is in the top layer, and nothing covers its emoji (the point a click lands on
    # is the emoji itself)
    assert picker.evaluate("p => p.matches(':popover-open')")
    party = picker.get_by_role("option", name="party popper")
    box = party.bounding_box()
    hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y).getAttribute('aria-label')",
                        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
    assert hit == "party popper"
    # AND typing filters the whole emoji set, beyond the common ones
    picker.get_by_label("Find an emoji").fill("avocado")
    expect(picker.get_by_role("option", name="avocado")).to_be_visible()
    picker.get_by_label("Find an emoji").fill("")
    # WHEN the member clicks an emoji, the reaction is added, the picker gone
    picker.get_by_role("option", name="party popper").click()
    expect(message.locator(".reaction")).to_have_attribute("aria-label", "party popper: 1")
    expect(picker).to_have_count(0)
