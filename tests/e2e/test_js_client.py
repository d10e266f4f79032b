"""The official JavaScript library (zulip-js 2.1.0, tests/clients/js) through a day's
calls against the local stack: it logs in with a password through the renaming proxy
(as the organization's address), reads, writes, reacts, flags, and follows events."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.clients.terminal import renaming_proxy

JS_TIER = Path(__file__).resolve().parents[1] / "clients" / "js"


def run_tour(stack) -> dict:
    assert (JS_TIER / "node_modules" / "zulip-js").exists(), \
        "zulip-js is missing: `make js-client` installs it"
    owner, member = stack.accounts()["owner"], stack.accounts()["member"]
    with renaming_proxy(stack.url, realm="demo") as site:
        done = subprocess.run(
            ["node", "tour.js", site, owner["email"], owner["password"],
             member["email"], member["password"]],
            check=False, cwd=JS_TIER, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_javascript_library_logs_in_reads_writes_and_follows_events(local_stack):
    tour = run_tour(local_stack)
    failed = {name: answer for name, answer in tour.items()
              if isinstance(answer, dict) and answer.get("result") != "success"}
    # THEN every call the library made succeeded, the password login included
    assert tour["logged_in"] and not failed, failed
    # AND it read the old branded names it looks for
    assert tour["settings"]["zulip_feature_level"] == tour["settings"]["service_feature_level"]
    sent = tour["send"]["id"]
    # AND what it wrote reads back: the message, its Markdown and emoji, the edit
    assert sent in [m["id"] for m in tour["newest"]["messages"]]
    assert tour["by_id"]["message"]["content"].startswith("<p>first <strong>post</strong> ")
    assert 'class="emoji emoji-1f389"' in tour["by_id"]["message"]["content"]
    assert "emoji emoji-1f604" in tour["render"]["rendered"]
    assert [h["content"] for h in tour["history"]["message_history"]] == [
        "first **post** :tada:", "first post, edited"]
    assert [r["emoji_name"] for r in tour["reacted"]["message"]["reactions"]] == ["tada"]
    assert {"hello"} <= {t["name"] for t in tour["topics"]["topics"]}
    # AND the queue it registered got the message, raw as it asked (no apply_markdown)
    [event] = [e for e in tour["events"]["events"] if e["type"] == "message"]
    assert event["message"]["id"] == tour["send_event"]["id"]
    assert event["message"]["content"] == "for the queue"
    # AND its callOnEachEvent loop received the next three messages in order
    assert tour["each_event"] == ["each 1", "each 2", "each 3"]
