"""GitLab: pushes and tags, merge requests, issues, comments, pipelines. The event type
is in the `X-Gitlab-Event` header, refined as the reference refines it: "Merge Request
Hook open", "Issue Hook close", "Note Hook MergeRequest", "Push Hook", "Pipeline Hook".

Topics: a merge request's events go to "<project> / MR #<iid> <title>", an issue's to
"<project> / issue #<iid> <title>", a branch's pushes and pipelines to
"<project> / <branch>".
"""
from __future__ import annotations

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
from chalicelib.integrations.markdown import bullet_list, code, link, plain, quoted
from chalicelib.integrations.payload import Field

EVENT_HEADER = "X-Gitlab-Event"
TOKEN_HEADER = "X-Gitlab-Token"  # nosec B105 # a header name, not a secret
MAX_JOBS = 15

MR_VERBS = {"open": "opened", "update": "updated", "merge": "merged", "close": "closed",
            "reopen": "reopened", "approved": "approved", "unapproved": "unapproved",
            "approval": "added their approval to", "unapproval": "removed their approval from"}
ISSUE_VERBS = {"open": "opened", "close": "closed", "reopen": "reopened", "update": "updated"}
NOTE_KINDS = {"MergeRequest": ("MR", "merge_request"), "Issue": ("issue", "issue")}


def _project(payload: Field) -> str:
    return payload["project"]["name"].text()


def _user(payload: Field) -> str:
    return payload["user"]["name"].text()


def _branch(ref: str) -> str:
    return ref.removeprefix("refs/heads/")


def _push(event: Inbound, payload: Field) -> list[Notice]:
    project, branch = _project(payload), _branch(payload["ref"].text())
    branches = event.options.get("branches")
    if branches and branch not in {b.strip() for b in branches.split(",")}:
        return []
    pusher, where = payload["user_name"].text(), f"{project} / {branch}"
    web = payload["project"].get("web_url").opt_text()
    if payload["after"].text() == ZERO_SHA:
        return [Notice(where, branch_event(pusher, branch, False, None), "Push Hook")]
    commits = [Commit(sha=c["id"].text(), message=c["message"].text(),
                      url=c.get("url").opt_text(), author=c["author"]["name"].text())
               for c in payload["commits"].items(limit=50)]
    total = payload.get("total_commits_count").value
    total = total if isinstance(total, int) and not isinstance(total, bool) else len(commits)
    if payload["before"].text() == ZERO_SHA and not commits:
        return [Notice(where, branch_event(pusher, branch, True, f"{web}/-/tree/{branch}"
                                           if web else None), "Push Hook")]
    compare = f"{web}/-/compare/{payload['before'].text()}...{payload['after'].text()}" \
        if web and payload["before"].text() != ZERO_SHA else None
    return [Notice(where, push_message(pusher, branch, commits, total, compare), "Push Hook")]


def _tag_push(event: Inbound, payload: Field) -> list[Notice]:
    tag = payload["ref"].text().removeprefix("refs/tags/")
    web = payload["project"].get("web_url").opt_text()
    created = payload["after"].text() != ZERO_SHA
    content = tag_event(payload["user_name"].text(), tag, created,
                        f"{web}/-/tags/{tag}" if web else None)
    return [Notice(_project(payload), content, "Tag Push Hook")]


def _action(attributes: Field, kind: str, verbs: Mapping[str, str]) -> str:
    """The action of a merge request's or issue's hook ("open" when GitLab gives none,
    as older versions did)."""
    action = attributes.get("action").opt_text() or "open"
    if action not in verbs:
        raise UnsupportedEventError(f"{kind} {action}")
    return action


def _merge_request(event: Inbound, payload: Field, kind: str) -> list[Notice]:
    mr = payload["object_attributes"]
    action = _action(mr, kind, MR_VERBS)
    iid, title = mr["iid"].number(), mr["title"].text()
    detail = ""
    if action == "open":
        detail = f"from {code(mr['source_branch'].text())} to {code(mr['target_branch'].text())}"
    body = mr.get("description").opt_text() if action == "open" else None
    content = object_event(_user(payload), MR_VERBS[action], "MR", iid, mr["url"].text(),
                           title if event.topic_given else None, detail, body)
    shown_title = title if event.options.get("use_merge_request_title", "true").lower() \
        not in ("false", "0") else ""
    return [Notice(object_topic(_project(payload), "MR", iid, shown_title).rstrip(), content,
                   f"{kind} {action}")]


def _issue(event: Inbound, payload: Field, kind: str) -> list[Notice]:
    issue = payload["object_attributes"]
    action = _action(issue, kind, ISSUE_VERBS)
    iid, title = issue["iid"].number(), issue["title"].text()
    body = issue.get("description").opt_text() if action == "open" else None
    content = object_event(_user(payload), ISSUE_VERBS[action], "issue", iid,
                           issue["url"].text(), title if event.topic_given else None, body=body)
    return [Notice(object_topic(_project(payload), "issue", iid, title), content,
                   f"{kind} {action}")]


def _note(event: Inbound, payload: Field, kind: str) -> list[Notice]:
    note = payload["object_attributes"]
    noteable = note["noteable_type"].text()
    event_type = f"{kind} {noteable}"
    if noteable == "Commit":
        commit = payload["commit"]
        content = f"{plain(_user(payload))} {link('commented', note['url'].text())} on commit " \
                  f"{link(code(commit['id'].text()[:7]), commit.get('url').opt_text())}"
        body = quoted(note["note"].text())
        return [Notice(_project(payload), f"{content}:\n\n{body}" if body else f"{content}.",
                       event_type)]
    if noteable not in NOTE_KINDS:
        raise UnsupportedEventError(event_type)
    label, key = NOTE_KINDS[noteable]
    target = payload[key]
    iid, title = target["iid"].number(), target["title"].text()
    content = object_event(_user(payload), "commented on", label, iid, note["url"].text(),
                           title if event.topic_given else None, body=note["note"].text())
    return [Notice(object_topic(_project(payload), label, iid, title), content, event_type)]


def _pipeline(event: Inbound, payload: Field) -> list[Notice]:
    pipeline = payload["object_attributes"]
    ref, status = pipeline["ref"].text(), pipeline["status"].text()
    web = payload["project"].get("web_url").opt_text()
    number = pipeline["id"].number()
    url = f"{web}/-/pipelines/{number}" if web else None
    what = "tag" if pipeline.get("tag").value is True else "branch"
    content = f"Pipeline {link(f'#{number}', url)} for {what} {code(ref)} " \
              f"({code(pipeline['sha'].text()[:7])}): **{plain(status)}**."
    jobs = payload.get("builds").items(limit=MAX_JOBS)
    if jobs:
        rows = [f"{plain(job['name'].text(), 80)} ({plain(job['stage'].scalar(), 40)}): "
                f"{plain(job['status'].text(), 20)}" for job in jobs]
        content += "\n\n" + bullet_list(rows, payload["builds"].count() - len(rows))
    return [Notice(f"{_project(payload)} / {_branch(ref)}", content, "Pipeline Hook")]


Translator = Callable[[Inbound, Field, str], list[Notice]]
BY_ACTION: Mapping[str, Translator] = {
    "Merge Request Hook": _merge_request, "Issue Hook": _issue,
    "Confidential Issue Hook": _issue, "Note Hook": _note, "Confidential Note Hook": _note,
}
SIMPLE: Mapping[str, Callable[[Inbound, Field], list[Notice]]] = {
    "Push Hook": _push, "Tag Push Hook": _tag_push, "Pipeline Hook": _pipeline,
}
EVENT_TYPES = ("Push Hook", "Tag Push Hook", "Pipeline Hook",
               *(f"Merge Request Hook {a}" for a in MR_VERBS),
               *(f"{k} {a}" for k in ("Issue Hook", "Confidential Issue Hook")
                 for a in ISSUE_VERBS),
               "Note Hook Commit", "Note Hook MergeRequest", "Note Hook Issue",
               "Confidential Note Hook Issue")


def translate(event: Inbound) -> list[Notice]:
    name = event.event_header(EVENT_HEADER)
    payload = Field(event.payload)
    if name in SIMPLE:
        return SIMPLE[name](event, payload)
    if name in BY_ACTION:
        return BY_ACTION[name](event, payload, name)
    raise UnsupportedEventError(name)


def carries_secret(body: bytes, headers: Mapping[str, str], secret: str) -> bool:
    """GitLab sends the webhook's secret token as it is, in `X-Gitlab-Token`."""
    given = headers.get(TOKEN_HEADER.lower(), "")
    return hmac.compare_digest(given.encode(), secret.encode())


INTEGRATION = Integration(
    name="gitlab", display_name="GitLab", translate=translate, all_event_types=EVENT_TYPES,
    url_options=(Option("branches", "Only these branches (comma-separated)"),
                 Option("use_merge_request_title", "Name merge requests' topics with their "
                        "titles", "check_bool")),
    config_options=(Option("webhook_secret", "The webhook's secret token"),),
    check_signature=carries_secret,
)
