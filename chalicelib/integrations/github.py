"""GitHub: pushes, pull requests and their reviews, issues and comments, releases, check
and workflow runs. The event type is in the `X-GitHub-Event` header; the event names the
filters match are the reference's where it has them (e.g. `opened_pull_request`).

Topics: a pull request's or issue's events go to "<repo> / PR #<n> <title>" (or issue),
a branch's pushes to "<repo> / <branch>", a workflow's runs to "<repo> / <workflow>".
"""
from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping

from chalicelib.integrations.base import (
    Inbound,
    Integration,
    Notice,
    Option,
    UnsupportedEventError,
)
from chalicelib.integrations.git import (
    ZERO_SHA,
    Commit,
    branch_event,
    object_event,
    object_topic,
    push_message,
    tag_event,
)
from chalicelib.integrations.markdown import code, link, plain, quoted
from chalicelib.integrations.payload import Field

EVENT_HEADER = "X-GitHub-Event"
SIGNATURE_HEADER = "X-Hub-Signature-256"

# GitHub sends these; they make no message (as in the reference), without an error.
IGNORED_EVENTS = {"check_suite", "label", "meta", "milestone", "organization",
                  "project_card", "repository_vulnerability_alert", "workflow_job",
                  "status", "deployment_status", "deployment", "membership", "team"}
IGNORED_PR_ACTIONS = {"approved", "converted_to_draft", "labeled", "unlabeled",
                      "review_request_removed", "edited", "milestoned", "demilestoned",
                      "enqueued", "dequeued"}
PR_EVENTS = {"opened": "opened_pull_request", "reopened": "opened_pull_request",
             "synchronize": "updated_pull_request", "closed": "closed_pull_request",
             "assigned": "assigned_or_unassigned_pull_request",
             "unassigned": "assigned_or_unassigned_pull_request",
             "review_requested": "pull_request_review_requested",
             "ready_for_review": "pull_request_ready_for_review",
             "locked": "locked_or_unlocked_pull_request",
             "unlocked": "locked_or_unlocked_pull_request",
             "auto_merge_enabled": "pull_request_auto_merge",
             "auto_merge_disabled": "pull_request_auto_merge"}
REVIEW_STATES = {"approved": "approved", "changes_requested": "requested changes on",
                 "commented": "reviewed", "dismissed": "dismissed a review of"}


def _repo(payload: Field) -> str:
    return payload["repository"]["name"].text()


def _sender(payload: Field) -> str:
    return payload["sender"]["login"].text()


def _push(event: Inbound, payload: Field) -> list[Notice]:
    ref = payload["ref"].text()
    repo, pusher = _repo(payload), payload["pusher"]["name"].text()
    created, deleted = payload.get("created").value is True, payload.get("deleted").value is True
    if ref.startswith("refs/tags/"):
        tag = ref.removeprefix("refs/tags/")
        url = f"{payload['repository']['html_url'].text()}/releases/tag/{tag}"
        return [Notice(repo, tag_event(pusher, tag, not deleted, url), "push_tags")]
    branch = ref.removeprefix("refs/heads/")
    if branch.startswith("gh-readonly-queue/"):
        return []   # GitHub's merge queue: its own temporary branches
    branches = event.options.get("branches")
    if branches and branch not in {b.strip() for b in branches.split(",")}:
        return []
    where = f"{repo} / {branch}"
    commits = [Commit(sha=c["id"].text(), message=c["message"].text(), url=c.get("url").opt_text(),
                      author=(c["author"].get("username").opt_text()
                              or c["author"]["name"].text()))
               for c in payload["commits"].items(limit=50)]
    if deleted or (created and not commits):
        tree = None if deleted else f"{payload['repository']['html_url'].text()}/tree/{branch}"
        return [Notice(where, branch_event(pusher, branch, not deleted, tree), "push_commits")]
    compare = payload.get("compare").opt_text()
    if payload.get("before").opt_text() == ZERO_SHA:
        compare = None   # a new branch: GitHub's compare link shows one commit only
    content = push_message(pusher, branch, commits, payload["commits"].count(), compare,
                           forced=payload.get("forced").value is True)
    return [Notice(where, content, "push_commits")]


def _pull_request(event: Inbound, payload: Field) -> list[Notice]:
    action = payload["action"].text()
    if action in IGNORED_PR_ACTIONS:
        return []
    kind = PR_EVENTS.get(action)
    if kind is None:
        raise UnsupportedEventError(f"pull_request:{action}")
    pr = payload["pull_request"]
    number, title, url = pr["number"].number(), pr["title"].text(), pr["html_url"].text()
    detail, body = "", None
    verb = {"synchronize": "updated", "review_requested": "requested a review on",
            "ready_for_review": "marked as ready for review",
            "auto_merge_enabled": "enabled auto-merge for",
            "auto_merge_disabled": "disabled auto-merge for"}.get(action, action)
    if action == "closed":
        verb = "merged" if pr.get("merged").value is True else "closed without merging"
    if action in ("opened", "reopened"):
        detail = f"from {code(pr['head']['label'].text())} to {code(pr['base']['label'].text())}"
        body = pr.get("body").opt_text() if action == "opened" else None
    elif action in ("assigned", "unassigned"):
        who = plain(payload["assignee"]["login"].text())
        detail = f"({'to' if action == 'assigned' else 'from'} {who})"
    elif action == "review_requested":
        reviewer = payload.get("requested_reviewer").get("login").opt_text() or \
            payload.get("requested_team").get("name").opt_text()
        detail = f"(from {plain(reviewer)})" if reviewer else ""
    content = object_event(_sender(payload), verb, "PR", number, url,
                           title if event.topic_given else None, detail, body)
    return [Notice(object_topic(_repo(payload), "PR", number, title), content, kind)]


def _review(event: Inbound, payload: Field) -> list[Notice]:
    action = payload["action"].text()
    review, pr = payload["review"], payload["pull_request"]
    if action == "edited" and not payload.get("changes").present:
        return []   # GitHub repeats a submitted review as an empty edit
    state = review["state"].text().lower()
    verb = "edited a review of" if action == "edited" else REVIEW_STATES.get(state, "reviewed")
    number, title = pr["number"].number(), pr["title"].text()
    content = object_event(review["user"]["login"].text(), verb, "PR", number,
                           review.get("html_url").opt_text() or pr["html_url"].text(),
                           title if event.topic_given else None,
                           body=review.get("body").opt_text())
    return [Notice(object_topic(_repo(payload), "PR", number, title), content,
                   "pull_request_review")]


def _review_comment(event: Inbound, payload: Field) -> list[Notice]:
    comment, pr = payload["comment"], payload["pull_request"]
    action = payload["action"].text()
    verb = "commented on" if action == "created" else f"{action} a comment on"
    number, title = pr["number"].number(), pr["title"].text()
    content = object_event(comment["user"]["login"].text(), verb, "PR", number,
                           comment["html_url"].text(), title if event.topic_given else None,
                           f"(in {code(comment.get('path').opt_text() or '')})"
                           if comment.get("path").present else "",
                           comment["body"].text() if action != "deleted" else None)
    return [Notice(object_topic(_repo(payload), "PR", number, title), content,
                   "pull_request_review_comment")]


def _issue(event: Inbound, payload: Field) -> list[Notice]:
    action, issue = payload["action"].text(), payload["issue"]
    number, title, url = issue["number"].number(), issue["title"].text(), issue["html_url"].text()
    kind, detail, body = "issues", "", None
    verb = action
    if action in ("labeled", "unlabeled"):
        kind = "issue_labeled_or_unlabeled"
        label = plain(payload["label"]["name"].text())
        verb = f"added the label {label} to" if action == "labeled" else \
            f"removed the label {label} from"
    elif action in ("milestoned", "demilestoned"):
        kind = "issue_milestoned_or_demilestoned"
        milestone = link(plain(payload["milestone"]["title"].text()),
                         payload["milestone"].get("html_url").opt_text())
        verb = f"added milestone {milestone} to" if action == "milestoned" else \
            f"removed milestone {milestone} from"
    elif action in ("assigned", "unassigned"):
        who = plain(payload["assignee"]["login"].text())
        detail = f"({'to' if action == 'assigned' else 'from'} {who})"
    elif action == "opened":
        body = issue.get("body").opt_text()
    elif action == "edited" and "body" in payload.get("changes"):
        verb, body = "edited the description of", issue.get("body").opt_text()
    content = object_event(_sender(payload), verb, "issue", number, url,
                           title if event.topic_given else None, detail, body)
    return [Notice(object_topic(_repo(payload), "issue", number, title), content, kind)]


def _issue_comment(event: Inbound, payload: Field) -> list[Notice]:
    action, issue, comment = payload["action"].text(), payload["issue"], payload["comment"]
    if action == "edited" and payload.get("changes").get("body").get("from").opt_text() == \
            comment["body"].text():
        return []   # an edit that left the text as it was
    kind = "PR" if "pull_request" in issue else "issue"
    number, title = issue["number"].number(), issue["title"].text()
    verb = "commented on" if action == "created" else f"{action} a comment on"
    content = object_event(_sender(payload), verb, kind, number, comment["html_url"].text(),
                           title if event.topic_given else None,
                           body=comment["body"].text() if action != "deleted" else None)
    return [Notice(object_topic(_repo(payload), kind, number, title), content, "issue_comment")]


def _release(event: Inbound, payload: Field) -> list[Notice]:
    action, release = payload["action"].text(), payload["release"]
    tag = release["tag_name"].text()
    name = release.get("name").opt_text() or tag
    kind = "pre-release" if release.get("prerelease").value is True else "release"
    sentence = f"{plain(_sender(payload))} {action} {kind} " \
               f"{link(plain(name, 120), release['html_url'].text())} for tag {code(tag)}"
    body = quoted(release.get("body").opt_text()) if action == "published" else ""
    content = f"{sentence}:\n\n{body}" if body else f"{sentence}."
    return [Notice(f"{_repo(payload)} / {tag}", content, "release")]


def _check_run(event: Inbound, payload: Field) -> list[Notice]:
    run = payload["check_run"]
    if run["status"].text() != "completed":
        return []
    conclusion = run.get("conclusion").opt_text() or "completed"
    branch = run.get("check_suite").get("head_branch").opt_text()
    where = f" on branch {code(branch)}" if branch else ""
    content = f"Check {link(plain(run['name'].text()), run.get('html_url').opt_text())}" \
              f" ({code(run['head_sha'].text()[:7])}){where}: **{plain(conclusion)}**."
    return [Notice(f"{_repo(payload)} / checks", content, "check_run")]


def _workflow_run(event: Inbound, payload: Field) -> list[Notice]:
    run = payload["workflow_run"]
    if payload["action"].text() != "completed":
        return []
    workflow = payload.get("workflow").get("name").opt_text() or run["name"].text()
    conclusion = run.get("conclusion").opt_text() or "completed"
    actor = run.get("actor").get("login").opt_text() or _sender(payload)
    number = f"#{run['run_number'].number()}"
    content = (f"Workflow {plain(workflow)} run {link(number, run['html_url'].text())} on branch "
               f"{code(run.get('head_branch').opt_text() or '?')} ({code(run['head_sha'].text()[:7])},"
               f" started by {plain(actor)}): **{plain(conclusion)}**.")
    title = run.get("display_title").opt_text()
    if title:
        content += f"\n\n> {plain(title, 200)}"
    return [Notice(f"{_repo(payload)} / {workflow}", content, "workflow_run")]


def _ping(event: Inbound, payload: Field) -> list[Notice]:
    where = payload.get("repository").get("full_name").opt_text() or \
        payload.get("organization").get("login").opt_text() or "GitHub"
    return [Notice(where.split("/")[-1], f"GitHub's webhook for {plain(where)} is set up: its "
                   "events will appear here.", "ping")]


def _created_or_deleted(verb: str) -> Callable[[Inbound, Field], list[Notice]]:
    def translate(event: Inbound, payload: Field) -> list[Notice]:
        ref_type, ref = payload["ref_type"].text(), payload["ref"].text()
        content = f"{plain(_sender(payload))} {verb} {plain(ref_type)} {code(ref)}."
        return [Notice(_repo(payload), content, "create" if verb == "created" else "delete")]
    return translate


def _repository_event(kind: str, phrase: str) -> Callable[[Inbound, Field], list[Notice]]:
    def translate(event: Inbound, payload: Field) -> list[Notice]:
        if kind == "star" and payload.get("action").opt_text() == "deleted":
            return []
        repo = payload["repository"]
        content = f"{plain(_sender(payload))} {phrase} " \
                  f"{link(plain(repo['full_name'].text()), repo['html_url'].text())}."
        return [Notice(_repo(payload), content, kind)]
    return translate


TRANSLATORS: Mapping[str, Callable[[Inbound, Field], list[Notice]]] = {
    "push": _push, "pull_request": _pull_request, "pull_request_review": _review,
    "pull_request_review_comment": _review_comment, "issues": _issue,
    "issue_comment": _issue_comment, "release": _release, "check_run": _check_run,
    "workflow_run": _workflow_run, "ping": _ping,
    "create": _created_or_deleted("created"), "delete": _created_or_deleted("deleted"),
    "fork": _repository_event("fork", "forked"),
    "star": _repository_event("star", "starred"),
    "watch": _repository_event("watch", "started watching"),
}
EVENT_TYPES = ("push_commits", "push_tags", *sorted(set(PR_EVENTS.values())),
               "pull_request_review", "pull_request_review_comment", "issues",
               "issue_labeled_or_unlabeled", "issue_milestoned_or_demilestoned",
               "issue_comment", "release", "check_run", "workflow_run", "ping", "create",
               "delete", "fork", "star", "watch")


def translate(event: Inbound) -> list[Notice]:
    name = event.event_header(EVENT_HEADER)
    payload = Field(event.payload)
    repository = payload.get("repository")
    if repository.present and repository.get("private").value is True and \
            event.flag("ignore_private_repositories"):
        return []
    translator = TRANSLATORS.get(name)
    if translator is None:
        if name in IGNORED_EVENTS:
            return []
        action = payload.get("action").opt_text() if isinstance(payload.value, dict) else None
        raise UnsupportedEventError(f"{name}:{action}" if action else name)
    return translator(event, payload)


def signed_by_secret(body: bytes, headers: Mapping[str, str], secret: str) -> bool:
    """GitHub's `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body>`."""
    given = headers.get(SIGNATURE_HEADER.lower(), "")
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(given.strip().encode(), expected.encode())


INTEGRATION = Integration(
    name="github", display_name="GitHub", translate=translate, all_event_types=EVENT_TYPES,
    url_options=(Option("branches", "Only these branches (comma-separated)"),
                 Option("ignore_private_repositories",
                        "Exclude notifications from private repositories", "check_bool")),
    config_options=(Option("webhook_secret", "The webhook's secret, to check its signature"),),
    check_signature=signed_by_secret,
    # GitHub's default content type: the JSON in a form field `payload`.
    form_field="payload",
)
