"""Sentry (`/external/sentry`) with Sentry's own webhooks: issues created and resolved,
an alert rule's event; each in its issue's topic; the client secret's signature."""
from __future__ import annotations

import hashlib
import hmac
import json

from tests.functional.integration_helpers import (
    channel_messages,
    fixture,
    fixture_json,
    last_message,
    make_hook,
)


def test_an_issue_is_created_then_resolved_in_its_topic(realm):
    hook = make_hook(realm)
    assert hook.post("sentry", fixture("sentry", "issue_created_for_exception.json"),
                     headers={"Sentry-Hook-Resource": "issue"}, stream="dev").status == 200
    created = last_message(realm)
    assert created["subject"] == "Exception: Custom exception!"
    assert created["content"] == (
        "New issue **Exception: Custom exception!**: level `error`, in "
        "`__main__ in <module>`, project Zulip Integration Testing, first seen "
        "2020-04-28 13:56 UTC.")
    resolved = fixture_json("sentry", "issue_resolved.json")
    resolved["data"]["issue"]["title"] = "Exception: Custom exception!"
    assert hook.post("sentry", resolved, stream="dev").status == 200
    message = last_message(realm)
    assert message["subject"] == "Exception: Custom exception!"
    assert message["content"] == \
        "Hemanth V. Alluri resolved issue **Exception: Custom exception!**."


def test_an_alert_rules_event(realm):
    hook = make_hook(realm)
    assert hook.post("sentry", fixture("sentry", "event_for_message_python.json"),
                     stream="dev").status == 200
    message = last_message(realm)
    assert message["subject"] == "A simple message-based issue."
    assert message["content"].startswith(
        "New event [**A simple message-based issue.**](https://sentry.io/organizations/"
        "hypro999-personal-organization/issues/1635261062/events/"
        "8da63b42375e4d3b803c377fefb062f8/) (level `info`), from the alert rule Send a "
        "webhook payload to Webhook.site.")


def test_sentry_filters_and_signature(realm):
    hook = make_hook(realm, service_name="sentry",
                     config_data=json.dumps({"webhook_secret": "client-secret"}))
    body = fixture("sentry", "issue_created_for_exception.json")
    signature = hmac.new(b"client-secret", body, hashlib.sha256).hexdigest()
    assert hook.post("sentry", body, stream="dev").status == 400
    headers = {"Sentry-Hook-Signature": signature}
    assert hook.post("sentry", body, headers=headers, stream="dev",
                     exclude_events=["issue.*"]).status == 200
    assert channel_messages(realm) == []
    assert hook.post("sentry", body, headers=headers, stream="dev").status == 200
    assert len(channel_messages(realm)) == 1
