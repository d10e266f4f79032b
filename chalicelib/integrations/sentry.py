"""Sentry: issues (created, resolved, assigned, ignored or archived, unresolved) from an
integration's webhooks, and events from alert rules or the legacy webhooks plugin. An
issue's messages go to its title's topic, as do the events grouped under it. The
resource is in the `Sentry-Hook-Resource` header when Sentry sends one; the payload
tells it otherwise. An integration's client secret signs the body
(`Sentry-Hook-Signature`)."""
from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping

from chalicelib.integrations.base import (
    Inbound,
    Integration,
    Notice,
    Option,
    UnsupportedEventError,
)
from chalicelib.integrations.markdown import code, link, plain, topic, when
from chalicelib.integrations.payload import Field

RESOURCE_HEADER = "Sentry-Hook-Resource"
SIGNATURE_HEADER = "Sentry-Hook-Signature"
ISSUE_VERBS = {"created": "New issue", "resolved": "resolved", "assigned": "assigned",
               "ignored": "ignored", "archived": "archived", "unresolved": "reopened"}


def _issue(payload: Field) -> Notice:
    action, issue = payload["action"].text(), payload["data"]["issue"]
    if action not in ISSUE_VERBS:
        raise UnsupportedEventError(f"issue.{action}")
    title = issue["title"].text()
    url = issue.get("web_url").opt_text() or issue.get("permalink").opt_text()
    name = link(f"**{plain(title, 200)}**", url)
    actor = plain(payload.get("actor").get("name").opt_text() or "Sentry", 80)
    if action == "created":
        facts = [f"level {code(issue.get('level').opt_text() or '?')}"]
        if issue.get("culprit").present:
            facts.append(f"in {code(issue['culprit'].text())}")
        project = issue.get("project").get("name").opt_text()
        if project:
            facts.append(f"project {plain(project, 80)}")
        seen = when(issue.get("firstSeen").opt_text())
        if seen:
            facts.append(f"first seen {seen}")
        content = f"New issue {name}: {', '.join(facts)}."
    elif action == "assigned":
        assignee = issue.get("assignedTo")
        who = plain(assignee.get("name").opt_text() or "nobody", 80)
        if assignee.get("type").opt_text() == "team":
            who = f"team {who}"
        content = f"{actor} assigned issue {name} to {who}."
    else:
        content = f"{actor} {ISSUE_VERBS[action]} issue {name}."
    return Notice(topic(title), content, f"issue.{action}")


def _exception(event: Field) -> str:
    """"ValueError: bad input, in handler (app.py line 12)": the last exception and the
    frame it was raised in."""
    values = event.get("exception").get("values").items(limit=20)
    if not values:
        return ""
    last = values[-1]
    text = f"{plain(last.get('type').opt_text() or 'Exception', 80)}: " \
           f"{plain(last.get('value').opt_text() or '', 300)}"
    frames = last.get("stacktrace").get("frames").items(limit=200)
    if frames:
        frame = frames[-1]
        where = frame.get("filename").opt_text() or frame.get("module").opt_text()
        if where:
            line = frame.get("lineno").value
            text += f", in {code(frame.get('function').opt_text() or '?')} ({code(where)}" + \
                (f" line {line}" if isinstance(line, int) else "") + ")"
    return text


def _event(payload: Field, key: str) -> Notice:
    event = payload["data"][key]
    title = event["title"].text()
    url = event.get("web_url").opt_text() or event.get("url").opt_text()
    level = event.get("level").opt_text() or "error"
    rule = payload["data"].get("triggered_rule").opt_text()
    lines = [f"New event {link(f'**{plain(title, 200)}**', url)} (level {code(level)})" +
             (f", from the alert rule {plain(rule, 120)}" if rule else "") + "."]
    detail = _exception(event) or plain(
        event.get("logentry").get("formatted").opt_text() or event.get("message").opt_text(),
        500)
    if detail:
        lines.append(detail)
    if event.get("culprit").present:
        lines.append(f"Culprit: {code(event['culprit'].text())}")
    return Notice(topic(title), "\n\n".join(lines), "event_alert" if key == "event" else key)


def _legacy(payload: Field) -> Notice:
    """The webhooks plugin's payload: project, message, level and a link."""
    project = payload["project_name"].text()
    message = payload.get("message").opt_text() or payload.get("culprit").opt_text() or ""
    level = payload.get("level").opt_text() or "error"
    content = f"New {link('issue', payload.get('url').opt_text())} in {plain(project, 80)} " \
              f"(level {code(level)}): {plain(message, 500)}"
    return Notice(topic(project), content, "event_alert")


def translate(event: Inbound) -> list[Notice]:
    payload = Field(event.payload)
    resource = (event.header(RESOURCE_HEADER) or "").strip()
    if resource == "installation":
        return []   # the integration was installed or removed: nothing to tell
    data = payload.get("data")
    if data.present:
        if "issue" in data:
            return [_issue(payload)]
        for key in ("event", "error"):
            if key in data:
                return [_event(payload, key)]
        raise UnsupportedEventError(resource or ",".join(k for k, _ in data.pairs(5)))
    return [_legacy(payload)]


def signed_by_secret(body: bytes, headers: Mapping[str, str], secret: str) -> bool:
    """Sentry's `Sentry-Hook-Signature`: the hex HMAC-SHA256 of the body."""
    given = headers.get(SIGNATURE_HEADER.lower(), "")
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(given.strip().encode(), expected.encode())


INTEGRATION = Integration(
    name="sentry", display_name="Sentry", translate=translate,
    all_event_types=(*(f"issue.{a}" for a in ISSUE_VERBS), "event_alert", "error"),
    config_options=(Option("webhook_secret", "The integration's client secret, to check "
                           "its signature"),),
    check_signature=signed_by_secret,
)
