"""The Slack-compatible incoming webhook (`/external/slack_incoming`) with Slack's own
message formats (Block Kit, attachments, a form-encoded `payload=`), and the generic
`/external/json`."""
from __future__ import annotations

import json

from tests.functional.integration_helpers import (
    channel_messages,
    fixture,
    last_message,
    make_hook,
    rendered,
)


def test_blocks_become_markdown(realm):
    hook = make_hook(realm)
    assert hook.post("slack_incoming", fixture("slack_incoming", "complicated.json"),
                     stream="dev").status == 200
    message = last_message(realm)
    # No channel in the payload: "(no topic)", which is the empty topic (shown under the
    # organization's name for it to a client that does not ask for empty topics)
    assert message["subject"] == "general chat"
    content = message["content"]
    assert content.startswith("**Hello from TaskBot**\n\nHey there 👋 I'm TaskBot.")
    assert "**1️⃣ Use the `/task` command**. Type" in content
    assert "**2️⃣ Use the *Create a Task* action.**" in content
    assert "[image1](https://api.slack.com/img/blocks/bkb_template_images/" \
           "onboardingComplex.jpg)" in content
    assert "Try writing some task" not in content   # an input block shows nothing


def test_attachments_and_their_fields(realm):
    hook = make_hook(realm)
    assert hook.post("slack_incoming", fixture("slack_incoming", "attachment_fields.json"),
                     stream="dev", topic="builds").status == 200
    message = last_message(realm)
    assert message["subject"] == "builds"
    assert message["content"] == (
        "Build bla bla succeeded\n\n**Requested by**: Some user\n**Duration**: 00:02:03\n"
        "**Build pipeline**: ConsumerAddressModule\n**Title without value**\n"
        "Value without title")
    assert hook.post("slack_incoming", fixture("slack_incoming", "attachment_pieces.json"),
                     stream="dev").status == 200
    assert last_message(realm)["content"] == (
        "**Test**\n\n[image](https://pbs.twimg.com/profile_images/625633822235693056/"
        "lNGUneLX_400x400.jpg)\n\n2022-06-23 00:48 UTC")


def test_a_form_encoded_payload_and_its_channel_as_topic(realm):
    hook = make_hook(realm)
    answer = hook.post("slack_incoming", fixture("slack_incoming", "urlencoded_text.txt"),
                       content_type="application/x-www-form-urlencoded", stream="dev")
    assert answer.status == 200, answer.json
    message = last_message(realm)
    assert (message["subject"], message["content"]) == (
        "devops", ":zap: chris has started deploying project tag v0.0.2rc10 to staging")
    missing = hook.post("slack_incoming", "text=hello",
                        content_type="application/x-www-form-urlencoded", stream="dev")
    assert (missing.status, missing.json["code"]) == (400, "REQUEST_VARIABLE_MISSING")


def test_slack_links_and_empty_messages(realm):
    hook = make_hook(realm)
    assert hook.post("slack_incoming", {"text": "Deploy <https://ci.example.com/1|#1> done, "
                                                "<javascript:alert(1)|click>"},
                     stream="dev").status == 200
    message = last_message(realm)
    assert message["content"].startswith("Deploy [\\#1](https://ci.example.com/1) done")
    assert 'href="javascript' not in rendered(realm, message["id"])
    assert hook.post("slack_incoming", {"text": ""}, stream="dev").status == 200
    assert len(channel_messages(realm)) == 1


def test_json_shows_the_payload(realm):
    hook = make_hook(realm)
    payload = {"build": {"status": "failed", "who": "@**all**"}, "n": 3}
    assert hook.post("json", payload, stream="dev").status == 200
    message = last_message(realm)
    assert message["subject"] == "JSON"
    assert message["content"] == "```json\n" + json.dumps(
        payload, indent=2, sort_keys=True).replace("@**all**", "@_**all**") + "\n```"
    assert "wildcard" not in rendered(realm, message["id"])
