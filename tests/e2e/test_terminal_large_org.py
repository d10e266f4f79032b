"""The official terminal client starts for an ordinary member of a generated 10,000-person
organization (issue 48: it crashed at start for every ordinary member, whose combined
feed then held messages of channels they were not in).

Part of `make test` (`make test-large-org` runs it alone). The organization is
bench/large_org.py's at 10,000 people with few channels and messages and no one else's
unread markers (the member's start-up reads the people, their channel memberships and
presence, the member's own messages and flags), built in a process of its own with its
items placed straight into moto's tables and saved as a local stack's state
(bench/org_snapshot.py): a stack started on it loads the tables whole, where writing the
same items into a running stack over HTTP took minutes. On the shared 2-core machine
the whole test takes about 30 s (building and saving 85,000 items about 13 s, the
stack's start 6 s, the client's 8 s, of which the member's registration 2.5 s, well
inside the client's 15 s request timeout; docs/scale.md has the figures)."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from infra.local.environment import REPO_ROOT
from infra.local.launcher import LocalStack, start_stack
from tests.e2e.test_terminal_client import post, start_terminal

PEOPLE = 10_000
CHANNELS = 40
MESSAGES = 2_000


@pytest.fixture(scope="module")
def large_org(tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[tuple[LocalStack, dict[str, Any]]]:
    state = tmp_path_factory.mktemp("large-org") / "state"
    summary_file = state.parent / "org.json"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "bench.org_snapshot", str(state),
                    "--users", str(PEOPLE), "--channels", str(CHANNELS),
                    "--messages", str(MESSAGES), "--unread-mean", "0",
                    "--out", str(summary_file)],
                   cwd=REPO_ROOT, check=True, stdout=subprocess.DEVNULL, timeout=300)
    built = time.perf_counter()
    stack = start_stack(state, timeout=180)
    summary = json.loads(summary_file.read_text())
    summary["seconds"]["stack start"] = round(time.perf_counter() - built, 1)
    summary["seconds"]["build and save"] = round(built - started, 1)
    yield stack, summary
    if stack.process.poll() is None:
        stack.kill()   # a throwaway state: nothing to save (saving it took seconds)


def test_starts_for_a_member_of_a_10000_person_organization(large_org, tmp_path: Path):
    stack, summary = large_org
    member = summary["accounts"]["member"]
    auth = (member["email"], member["api_key"])
    assert summary["spec"]["users"] == PEOPLE
    # GIVEN an ordinary member who has read everything (the client then opens at the
    # newest message; nothing is sent, so no fan-out to 10,000 people runs meanwhile)
    post(stack, member, "/mark_all_as_read")
    # AND whose combined feed holds only channels they are in
    mine = {s["stream_id"] for s in requests.get(
        f"{stack.url}/api/v1/users/me/subscriptions", auth=auth,
        timeout=60).json()["subscriptions"]}
    response = requests.get(f"{stack.url}/api/v1/messages", auth=auth, timeout=60, params={
        "anchor": "newest", "num_before": 100, "num_after": 0, "narrow": "[]",
        "apply_markdown": "false"})
    assert response.ok, response.text
    feed = response.json()["messages"]
    assert len(mine) < CHANNELS and feed
    assert {m["stream_id"] for m in feed if m["type"] == "stream"} <= mine
    newest = " ".join(feed[-1]["content"].split()[:3])
    # THEN the member's terminal client starts and shows the newest of them
    started = time.perf_counter()
    start_terminal(stack, member, tmp_path, newest)
    summary["seconds"]["terminal start"] = round(time.perf_counter() - started, 1)
    print(json.dumps(summary["seconds"]))
