"""The official terminal client (zulip-term 0.7.0) starts and shows its message list, for
a user who has read everything (the one it crashed for when `newest` answered the newest
message's id instead of the reference's LARGER_THAN_MAX_MESSAGE_ID), for one with
unread messages, and for a member with a public channel they are not in (issue 48). It
runs behind the renaming proxy, in a pseudo-terminal, as a person runs it."""
from __future__ import annotations

import json

import requests

from tests.clients.terminal import TERM_CLIENT, Terminal, renaming_proxy, write_zuliprc


def post(stack, account: dict, path: str, **data: str) -> dict:
    answer = requests.post(f"{stack.url}/api/v1{path}", timeout=10, data=data,
                           auth=(account["email"], account["api_key"]))
    assert answer.ok, answer.text
    return answer.json()


# zulip-term 0.7.0's presence thread may redraw before its main loop has made the pipe
# it redraws through, when the server answers the first presence request at once: the
# thread dies with this assertion (core.py, update_screen). A race in the client, not an
# answer of the server's: such a start is tried again.
CLIENT_STARTUP_RACE = 'assert hasattr(self, "_update_pipe")'


def start_terminal(stack, account: dict, tmp_path, expected: str) -> str:
    """The screen once `expected` shows, after the client ran a few seconds more (a crash
    in the message view comes right after the first draw)."""
    for attempt in range(3):
        screen, output = _run_terminal(stack, account, tmp_path / str(attempt), expected)
        if CLIENT_STARTUP_RACE not in output:
            return screen
    raise AssertionError(f"zulip-term lost its startup race three times:\n{output[-3000:]}")


def _run_terminal(stack, account: dict, tmp_path, expected: str) -> tuple[str, str]:
    assert TERM_CLIENT.exists(), "zulip-term is missing: `make term-client` installs it"
    tmp_path.mkdir()
    with renaming_proxy(stack.url) as site:
        terminal = Terminal(write_zuliprc(tmp_path, account, site))
        try:
            shown = terminal.wait_for(expected, 60)
            terminal.pump(3)
            alive = terminal.child.isalive()
            screen = terminal.text()
        finally:
            terminal.close()
    output = terminal.output.decode(errors="replace")
    if CLIENT_STARTUP_RACE in output:
        return screen, output
    crash_log = tmp_path / "zulip-terminal-tracebacks.log"
    assert not crash_log.exists(), crash_log.read_text()[-3000:]
    assert "crashed" not in output and "Traceback" not in output, output[-3000:]
    assert alive, screen
    assert shown, screen
    return screen, output


def test_starts_for_a_user_who_has_read_everything(local_stack, tmp_path):
    # GIVEN the owner's own messages and nothing unread
    owner = local_stack.accounts()["owner"]
    for n in range(3):
        post(local_stack, owner, "/messages", type="stream", to="general",
             topic="terminal", content=f"all read, line {n}")
    post(local_stack, owner, "/mark_all_as_read")
    body = requests.get(f"{local_stack.url}/api/v1/messages", timeout=10,
                        auth=(owner["email"], owner["api_key"]),
                        params={"anchor": "first_unread", "num_before": 1,
                                "num_after": 1}).json()
    assert body["anchor"] == 10**16, body   # nothing unread
    # THEN the client starts and shows the newest messages
    screen = start_terminal(local_stack, owner, tmp_path, "all read, line 2")
    assert "all read, line 1" in screen


def test_starts_for_a_user_with_unread_messages(local_stack, tmp_path):
    # GIVEN messages the member has not read (and only those: other tests of this stack
    # post where the member reads too, which would move the first unread message)
    accounts = local_stack.accounts()
    post(local_stack, accounts["member"], "/mark_all_as_read")
    for n in range(3):
        post(local_stack, accounts["owner"], "/messages", type="stream", to="general",
             topic="terminal unread", content=f"not yet read, line {n}")
    # THEN the client starts at them
    screen = start_terminal(local_stack, accounts["member"], tmp_path, "not yet read, line 0")
    assert "terminal unread" in screen


def test_starts_for_a_member_with_a_channel_they_are_not_in(local_stack, tmp_path):
    # GIVEN issue 48's reproduction: as the owner, a channel the member is not in with
    # three messages, and one message in #general (the client used to crash at start,
    # "IndexError: focus index is out of range": it dropped the other channel's messages
    # from its list but counted them to place the cursor)
    accounts = local_stack.accounts()
    owner, member = accounts["owner"], accounts["member"]
    post(local_stack, member, "/mark_all_as_read")   # other tests' lines stay off screen
    post(local_stack, owner, "/users/me/subscriptions",
         subscriptions=json.dumps([{"name": "owner's corner"}]))
    for n in range(3):
        post(local_stack, owner, "/messages", type="stream", to="owner's corner",
             topic="aside", content=f"corner note {n}")
    post(local_stack, owner, "/messages", type="stream", to="general", topic="terminal feed",
         content="a line the member reads")
    # AND the combined feed the client asks for lists no message of that channel
    body = requests.get(f"{local_stack.url}/api/v1/messages", timeout=10,
                        auth=(member["email"], member["api_key"]),
                        params={"anchor": "newest", "num_before": 5, "num_after": 0,
                                "narrow": "[]"}).json()
    assert body["messages"] and all(m.get("display_recipient") != "owner's corner"
                                    for m in body["messages"]), body
    # THEN the member's client starts and shows #general's message
    screen = start_terminal(local_stack, member, tmp_path, "a line the member reads")
    assert "corner note" not in screen
