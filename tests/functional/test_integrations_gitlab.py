"""GitLab (`/external/gitlab`) with GitLab's own payload samples: pushes, tags, merge
requests and their comments, issues, pipelines; the reference's event names for the
filters; one topic per merge request, issue and branch."""
from __future__ import annotations

import pytest

from tests.functional.integration_helpers import (
    channel_messages,
    fixture,
    fixture_json,
    last_message,
    make_hook,
)

EVENTS = {"push": "Push Hook", "tag_push": "Tag Push Hook", "merge_request":
          "Merge Request Hook", "issue": "Issue Hook", "note_merge_request": "Note Hook",
          "pipeline": "Pipeline Hook"}


@pytest.fixture
def hook(realm):
    return make_hook(realm)


def post(hook, name: str, body=None, **query):
    return hook.post("gitlab", fixture("gitlab", f"{name}.json") if body is None else body,
                     headers={"X-Gitlab-Event": EVENTS[name]}, stream="dev", **query)


def test_a_push_lists_its_commits_in_the_branchs_topic(realm, hook):
    assert post(hook, "push").status == 200
    message = last_message(realm)
    assert message["subject"] == "Diaspora / master"
    lines = message["content"].split("\n")
    assert lines[0] == (
        "John Smith pushed [4 commits](http://example.com/mike/diaspora/-/compare/"
        "95790bf891e76fee5e1747ab589903a6a1f80f22...da1560886d4f094c3e6c9ef40349f7d38b5d27d7)"
        " to branch `master`.")
    assert lines[2].startswith("* Merge branch 'some-feature' into 'master' ([`b6568db`](")
    assert lines[2].endswith(") by Jordi Mallach") and lines[-1] == "* … and 2 more"
    # A branch left out by `branches`
    assert post(hook, "push", branches="release").status == 200
    assert len(channel_messages(realm)) == 1


def test_a_merge_request_and_its_comments_share_a_topic(realm, hook):
    assert post(hook, "merge_request").status == 200
    assert post(hook, "note_merge_request").status == 200
    opened, comment = channel_messages(realm)
    assert opened["subject"] == "Gitlab Test / MR #1 MS-Viewport"
    assert opened["content"] == ("User1 opened [MR #1](http://example.com/diaspora/"
                                 "merge_requests/1) from `ms-viewport` to `master`.")
    assert comment["content"] == (
        "Administrator commented on [MR #1](http://example.com/gitlab-org/gitlab-test/"
        "merge_requests/1#note_1244):\n\n> This MR needs work.")
    # Merged, it goes on in the same topic
    merged = fixture_json("gitlab", "merge_request.json")
    merged["object_attributes"]["action"] = "merge"
    assert post(hook, "merge_request", merged).status == 200
    message = last_message(realm)
    assert (message["subject"], message["content"]) == (
        "Gitlab Test / MR #1 MS-Viewport",
        "User1 merged [MR #1](http://example.com/diaspora/merge_requests/1).")


def test_issues_tags_and_pipelines(realm, hook):
    assert post(hook, "issue").status == 200
    issue = last_message(realm)
    assert issue["subject"] == "Gitlab Test / issue #23 New API: create/update/delete file"
    assert issue["content"].startswith("Administrator opened [issue #23]("
                                       "http://example.com/diaspora/issues/23):\n\n> Create")
    assert post(hook, "tag_push").status == 200
    assert last_message(realm)["content"] == \
        "John Smith pushed tag [`v1.0.0`](http://example.com/jsmith/example/-/tags/v1.0.0)."
    assert post(hook, "pipeline").status == 200
    pipeline = last_message(realm)
    assert pipeline["subject"] == "Gitlab Test / master"
    assert pipeline["content"].startswith(
        "Pipeline [#31](http://192.168.64.1:3005/gitlab-org/gitlab-test/-/pipelines/31) for "
        "branch `master` (`bcbb5ec`): **success**.\n\n* production (deploy): skipped")


def test_filters_use_the_references_event_names(realm, hook):
    assert post(hook, "issue", exclude_events=["Issue Hook *"]).status == 200
    assert post(hook, "pipeline", only_events=["Merge Request Hook *"]).status == 200
    assert channel_messages(realm) == []
    assert post(hook, "merge_request", only_events=["Merge Request Hook open"]).status == 200
    assert len(channel_messages(realm)) == 1


def test_an_unknown_gitlab_event(realm, hook):
    answer = hook.post("gitlab", fixture("gitlab", "push.json"),
                       headers={"X-Gitlab-Event": "Emoji Hook"}, stream="dev")
    assert (answer.status, answer.json["code"], answer.json["event_type"]) == \
        (200, "UNSUPPORTED_WEBHOOK_EVENT_TYPE", "Emoji Hook")
    assert answer.json["msg"] == ("The GitLab integration does not handle the event "
                                  "'Emoji Hook'; it was ignored.")
