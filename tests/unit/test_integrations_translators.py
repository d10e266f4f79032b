"""Every translator, against payloads no tool sends: it answers with messages or with a
webhook error (a 4xx, or the reference's 200 for an unsupported event), never with
another exception (a 500). The tools' real samples are the functional tests'."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib.core.errors import ApiError
from chalicelib.integrations import INTEGRATIONS
from chalicelib.integrations.base import Inbound, Notice, WebhookError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "integrations"
HEADERS: dict[str, list[dict[str, str]]] = {
    "github": [{"x-github-event": e} for e in (
        "push", "pull_request", "pull_request_review", "pull_request_review_comment",
        "issues", "issue_comment", "release", "check_run", "workflow_run", "ping", "create",
        "delete", "fork", "star", "watch", "sponsorship")],
    "gitlab": [{"x-gitlab-event": e} for e in (
        "Push Hook", "Tag Push Hook", "Merge Request Hook", "Issue Hook",
        "Confidential Issue Hook", "Note Hook", "Pipeline Hook", "Emoji Hook")],
    "sentry": [{}, {"sentry-hook-resource": "installation"}],
}
KEYS = ["action", "ref", "commits", "repository", "sender", "pull_request", "issue",
        "review", "comment", "object_attributes", "project", "user", "data", "alerts",
        "labels", "status", "title", "state", "blocks", "attachments", "text", "name",
        "number", "html_url", "before", "after", "event", "check_run", "workflow_run"]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(
        ["", "x", "opened", "completed", "firing", "refs/heads/main", "0" * 40,
         "https://x.example/", "created", "section", "MergeRequest"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(KEYS), inner, max_size=6), max_leaves=25)


def translate(name: str, headers: dict[str, str], payload: object) -> list[Notice]:
    integration = INTEGRATIONS[name]
    try:
        return integration.translate(Inbound(payload, headers, {}, topic_given=False))
    except WebhookError as error:
        error.for_integration(integration.display_name)
        assert error.http_status in (200, 400)
        return []


CASES = [(name, headers) for name in sorted(INTEGRATIONS)
         for headers in HEADERS.get(name, [{}])]


@pytest.mark.parametrize(("name", "headers"), CASES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=JSON_VALUES)
def test_no_payload_breaks_a_translator(name, headers, payload):
    for notice in translate(name, headers, payload):
        assert notice.content.strip() and isinstance(notice.topic, str)


@pytest.mark.parametrize("path", sorted(p for p in FIXTURES.glob("*/*.json")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_sample_translates_without_error(path):
    """Each sample, with the event header its name gives: messages, or nothing on
    purpose (none of the samples is an unsupported event)."""
    tool = path.parent.name
    event = path.name.split("__")[0].removesuffix(".json")
    gitlab = {"push": "Push Hook", "tag_push": "Tag Push Hook", "issue": "Issue Hook",
              "merge_request": "Merge Request Hook", "note_merge_request": "Note Hook",
              "pipeline": "Pipeline Hook"}
    headers = {"github": {"x-github-event": event},
               "gitlab": {"x-gitlab-event": gitlab.get(event, "")}}.get(tool, {})
    try:
        notices = INTEGRATIONS[tool].translate(Inbound(json.loads(path.read_bytes()), headers,
                                                       {}))
    except ApiError as error:   # pragma: no cover - the failure's message says which
        pytest.fail(f"{path.name}: {error.msg}")
    assert notices or path.name == "pull_request__labeled.json"
