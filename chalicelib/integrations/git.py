"""What GitHub and GitLab messages share: a push and its commits, and one sentence for
what happened to a pull (merge) request or an issue, with its description quoted."""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib.integrations.markdown import bullet_list, code, link, plain, quoted

MAX_COMMITS = 10
ZERO_SHA = "0" * 40


@dataclass(frozen=True)
class Commit:
    sha: str
    message: str
    url: str | None
    author: str


def push_message(pusher: str, branch: str, commits: list[Commit], total: int,
                 compare_url: str | None, forced: bool = False) -> str:
    """`total`: how many commits the push brought (the payload may list fewer)."""
    verb = "force-pushed" if forced else "pushed"
    count = f"{total} commit{'s' if total != 1 else ''}"
    head = f"{plain(pusher)} {verb} {link(count, compare_url)} to branch {code(branch)}."
    if not commits:
        return head
    rows = []
    for commit in commits[:MAX_COMMITS]:
        row = f"{plain(commit.message.partition(chr(10))[0], 120)} " \
              f"({link(code(commit.sha[:7]), commit.url)})"
        if commit.author and commit.author != pusher:
            row += f" by {plain(commit.author, 60)}"
        rows.append(row)
    return f"{head}\n\n{bullet_list(rows, total - len(rows))}"


def branch_event(pusher: str, branch: str, created: bool, url: str | None) -> str:
    what = "created" if created else "deleted"
    name = link(code(branch), url) if created else code(branch)
    return f"{plain(pusher)} {what} branch {name}."


def tag_event(pusher: str, tag: str, created: bool, url: str | None) -> str:
    if created:
        return f"{plain(pusher)} pushed tag {link(code(tag), url)}."
    return f"{plain(pusher)} deleted tag {code(tag)}."


def object_event(actor: str, verb: str, kind: str, number: int, url: str | None,
                 title: str | None = None, detail: str = "", body: str | None = None) -> str:
    """"alice opened [PR #12](…) from `a` to `b`:" and the quoted body. `title` is
    given when the topic does not name the object already; `detail` is Markdown."""
    name = f"{kind} #{number}" + (f" {plain(title, 120)}" if title else "")
    sentence = f"{plain(actor)} {verb} {link(name, url)}" + (f" {detail}" if detail else "")
    body_quote = quoted(body)
    return f"{sentence}:\n\n{body_quote}" if body_quote else f"{sentence}."


def object_topic(repo: str, kind: str, number: int, title: str) -> str:
    return f"{repo} / {kind} #{number} {title}"
