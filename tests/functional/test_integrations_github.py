"""GitHub (`/external/github`) with GitHub's own payload samples: what each event says,
the topic it lands in (one per pull request, issue, branch, workflow), the events that
make no message, and the URL options `branches` and `ignore_private_repositories`."""
from __future__ import annotations

import json

import pytest

from tests.functional.integration_helpers import (
    channel_messages,
    fixture,
    fixture_json,
    last_message,
    make_hook,
)

REPO = "https://github.com/Codertocat/Hello-World"


def post(hook, event: str, body, **query):
    name = body if isinstance(body, str) else None
    raw = fixture("github", name) if name else json.dumps(body).encode()
    return hook.post("github", raw, headers={"X-GitHub-Event": event}, stream="dev", **query)


@pytest.fixture
def hook(realm):
    return make_hook(realm)


def test_a_pull_requests_events_share_its_topic(realm, hook):
    for name in ("pull_request__opened.json", "pull_request__synchronize.json",
                 "pull_request_review__submitted.json", "pull_request__closed.json"):
        event = name.split("__")[0]
        assert post(hook, event, name).status == 200, name
    messages = channel_messages(realm)
    assert {m["subject"] for m in messages} == {
        "Hello-World / PR #2 Update the README with new information."}
    assert [m["content"].split(" [")[0] for m in messages] == [
        "Codertocat opened", "Codertocat updated", "Codertocat reviewed",
        "Codertocat closed without merging"]
    assert messages[2]["content"] == \
        f"Codertocat reviewed [PR #2]({REPO}/pull/2#pullrequestreview-237895671)."
    # A merged pull request says so
    merged = fixture_json("github", "pull_request__closed.json")
    merged["pull_request"]["merged"] = True
    assert post(hook, "pull_request", merged).status == 200
    assert last_message(realm)["content"] == f"Codertocat merged [PR #2]({REPO}/pull/2)."


def test_labels_on_a_pull_request_make_no_message(realm, hook):
    answer = post(hook, "pull_request", "pull_request__labeled.json")
    assert answer.status == 200 and answer.json["result"] == "success"
    assert channel_messages(realm) == []


def test_an_issue_and_its_comments(realm, hook):
    assert post(hook, "issues", "issues__opened.json").status == 200
    assert post(hook, "issues", "issues__labeled.json").status == 200
    assert post(hook, "issue_comment", "issue_comment__created.json").status == 200
    opened, labeled, comment = channel_messages(realm)
    assert {m["subject"] for m in (opened, labeled, comment)} == {
        "Hello-World / issue #1 Spelling error in the README file"}
    assert opened["content"] == (
        f"Codertocat opened [issue #1]({REPO}/issues/1):\n\n"
        "> It looks like you accidently spelled 'commit' with two 't's.")
    assert labeled["content"] == \
        f"Codertocat added the label bug to [issue #1]({REPO}/issues/1)."
    assert comment["content"] == (
        f"Codertocat commented on [issue #1]({REPO}/issues/1#issuecomment-492700400):\n\n"
        "> You are totally right! I'll get this fixed right away.")
    # An edit that leaves the text as it was says nothing
    edited = fixture_json("github", "issue_comment__created.json")
    edited["action"] = "edited"
    edited["changes"] = {"body": {"from": edited["comment"]["body"]}}
    assert post(hook, "issue_comment", edited).status == 200
    assert len(channel_messages(realm)) == 3


def test_pushes_go_to_their_branchs_topic(realm, hook):
    assert post(hook, "push", "push__new_branch.json").status == 200
    message = last_message(realm)
    assert message["subject"] == "Hello-World / master"
    assert message["content"] == (
        "Codertocat pushed 1 commit to branch `master`.\n\n"
        f"* Initial commit ([`6113728`]({REPO}/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246))")
    assert post(hook, "push", "push__tag_deleted.json").status == 200
    tag = last_message(realm)
    assert (tag["subject"], tag["content"]) == ("Hello-World",
                                                "Codertocat deleted tag `simple-tag`.")


def test_many_commits_are_listed_up_to_a_limit(realm, hook):
    push = fixture_json("github", "push__new_branch.json")
    commit = push["commits"][0]
    push["before"] = "a" * 40
    push["commits"] = [{**commit, "id": f"{n:040x}", "message": f"Change {n}\n\nbody"}
                       for n in range(25)]
    assert post(hook, "push", push).status == 200
    content = last_message(realm)["content"]
    assert content.startswith("Codertocat pushed [25 commits](")
    assert content.count("\n* Change ") == 10 and content.endswith("* … and 15 more")


def test_branches_and_private_repositories_can_be_left_out(realm, hook):
    assert post(hook, "push", "push__new_branch.json", branches="main,dev").status == 200
    assert channel_messages(realm) == []
    assert post(hook, "push", "push__new_branch.json", branches="dev, master").status == 200
    assert len(channel_messages(realm)) == 1
    private = fixture_json("github", "issues__opened.json")
    private["repository"]["private"] = True
    assert post(hook, "issues", private, ignore_private_repositories="true").status == 200
    assert len(channel_messages(realm)) == 1
    assert post(hook, "issues", private).status == 200
    assert len(channel_messages(realm)) == 2


def test_releases_checks_and_workflow_runs(realm, hook):
    assert post(hook, "release", "release__published.json").status == 200
    release = last_message(realm)
    assert release["subject"] == "Hello-World / 0.0.1"
    assert release["content"] == ("Codertocat published release "
                                  f"[0.0.1]({REPO}/releases/tag/0.0.1) for tag `0.0.1`.")
    assert post(hook, "check_run", "check_run__completed.json").status == 200
    check = last_message(realm)
    assert check["subject"] == "Hello-World / checks"
    assert check["content"] == (f"Check [Octocoders-linter]({REPO}/runs/128620228) "
                                "(`ec26c3e`) on branch `changes`: **success**.")
    assert post(hook, "workflow_run", "workflow_run__completed.json").status == 200
    run = last_message(realm)
    assert run["subject"] == "octo-repo / test"
    assert run["content"].startswith(
        "Workflow test run [#163](https://github.com/octo-org/octo-repo/actions/runs/289782451)"
        " on branch `master` (`3484a3f`, started by Codertocat): **success**.")
    # A run that has not completed says nothing yet
    running = fixture_json("github", "workflow_run__completed.json")
    running["action"] = "in_progress"
    assert post(hook, "workflow_run", running).status == 200
    assert len(channel_messages(realm)) == 3


def test_ping_and_stars(realm, hook):
    assert post(hook, "ping", "ping.json").status == 200
    assert "webhook for Octocoders/Hello-World is set up" in last_message(realm)["content"]
    assert post(hook, "star", "star__created.json").status == 200
    assert last_message(realm)["content"] == \
        f"Codertocat starred [Codertocat/Hello-World]({REPO})."


def test_github_events_without_a_message_are_answered_as_the_reference_does(realm, hook):
    # Ignored on purpose: success, nothing sent
    assert post(hook, "check_suite", {"action": "completed"}).json["result"] == "success"
    # Unknown: the reference's 200 with UNSUPPORTED_WEBHOOK_EVENT_TYPE
    odd = fixture_json("github", "pull_request__opened.json")
    odd["action"] = "teleported"
    answer = post(hook, "pull_request", odd)
    assert (answer.status, answer.json["code"], answer.json["event_type"]) == \
        (200, "UNSUPPORTED_WEBHOOK_EVENT_TYPE", "pull_request:teleported")
    assert channel_messages(realm) == []


def test_githubs_form_encoded_content_type_works_too(realm, hook):
    from urllib.parse import urlencode

    body = urlencode({"payload": fixture("github", "issues__opened.json").decode()})
    answer = hook.post("github", body, content_type="application/x-www-form-urlencoded",
                       headers={"X-GitHub-Event": "issues"}, stream="dev")
    assert answer.status == 200, answer.json
    assert last_message(realm)["content"].startswith("Codertocat opened [issue #1](")
