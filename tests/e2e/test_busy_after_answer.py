"""No request, however formed, keeps the API process busy after its answer (issue 39,
item 12): a burst of the slowest requests a member and an administrator can make is
answered, and the API process is as idle afterwards as before it.

The burst: anchor=date over a deleted message right below the date's first message (it
made the date search spin forever), a message rendered through a backtracking linkifier
(exponential in Python's `re`), direct-message narrows naming one user a thousand ways
and three thousand ways, narrows that examine the most candidates a request may, and
search narrows with the most terms a narrow may have.
"""
from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import requests

from infra.local.launcher import fresh_stack

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
QUIET_SECONDS = 3.0


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of the process so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def busy_while_quiet(pid: int) -> float:
    """CPU seconds the process uses in QUIET_SECONDS in which no request is sent."""
    before = cpu_seconds(pid)
    time.sleep(QUIET_SECONDS)
    return cpu_seconds(pid) - before


class Api:
    def __init__(self, url: str, account: dict) -> None:
        self.url, self.auth = f"{url}/api/v1", (account["email"], account["api_key"])

    def call(self, method: str, path: str, params: dict | None = None) -> requests.Response:
        params = {k: json.dumps(v) if isinstance(v, (list, dict)) else v
                  for k, v in (params or {}).items()}
        # In the body, GET too (the server reads it): a 73 KB narrow is past what an
        # HTTP server takes in a request line.
        return requests.request(method, self.url + path, auth=self.auth, timeout=60,
                                data=params)

    def ok(self, method: str, path: str, params: dict | None = None) -> dict:
        response = self.call(method, path, params)
        assert response.ok, response.text
        return response.json()


def test_no_request_keeps_the_api_busy_after_its_answer():
    with fresh_stack() as stack:
        accounts = stack.accounts()
        owner, admin, member = (Api(stack.url, accounts[r]) for r in (
            "owner", "admin", "member"))
        pid = stack.process.pid
        # GIVEN a channel with a deleted message right below the first of a second
        owner.ok("POST", "/users/me/subscriptions", {
            "subscriptions": [{"name": "burst"}],
            "principals": [accounts["member"]["user_id"], accounts["owner"]["user_id"]]})

        def send(content: str) -> int:
            return owner.ok("POST", "/messages", {"type": "stream", "to": "burst",
                                                  "topic": "t", "content": content})["id"]
        send("older")
        doomed = send("deleted")
        time.sleep(1.1)
        date = datetime.now(UTC).isoformat()
        first = send("the first since the date")
        owner.ok("DELETE", f"/messages/{doomed}")
        # AND an administrator's backtracking linkifier
        admin.ok("POST", "/realm/filters", {"pattern": "(?P<id>(a+)+)b",
                                            "url_template": "https://example.com/{id}"})
        idle = busy_while_quiet(pid)
        email = accounts["owner"]["email"]
        spellings = [" " * n + email.upper() if n % 2 else " " * n + email
                     for n in range(3000)]
        window = {"anchor": "newest", "num_before": 2500, "num_after": 0}
        slow = [
            ("GET", "/messages", {"anchor": "date", "anchor_date": date, "num_before": 0,
                                  "num_after": 0, "narrow": [["channel", "burst"]]}),
            ("POST", "/messages", {"type": "stream", "to": "burst", "topic": "a" * 60,
                                   "content": "a" * 9000 + "!"}),
            ("GET", "/messages", {**window, "narrow": [["pm-with", ",".join(spellings)]]}),
            ("GET", "/messages", {**window,
                                  "narrow": [["pm-with", ",".join(spellings[:1000])]]}),
            ("GET", "/messages", {**window, "num_after": 2500, "anchor": "1",
                                  "narrow": [["is", "followed"]]}),
            ("GET", "/messages", {**window, "narrow": [["search", f"word{n}"]
                                                       for n in range(50)]}),
            ("POST", "/messages/flags/narrow", {"anchor": "date", "anchor_date": date,
                                                "num_before": 0, "num_after": 1000,
                                                "narrow": [], "op": "add",
                                                "flag": "starred"}),
        ]
        # WHEN members send the burst, four at a time
        started = time.monotonic()
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda r: member.call(*r), slow * 4))
        burst_seconds = time.monotonic() - started
        # THEN every request is answered, in the API's envelope, none with a 5xx
        assert all(a.status_code < 500 and "result" in a.json() for a in answers), [
            (a.status_code, a.text[:200]) for a in answers if a.status_code >= 500]
        date_answer = answers[0].json()
        assert date_answer["anchor"] == first, date_answer
        # AND afterwards the API process is as idle as before the burst
        after = busy_while_quiet(pid)
        print(f"burst of {len(answers)} requests answered in {burst_seconds:.1f} s; API "
              f"process CPU in {QUIET_SECONDS:g} quiet seconds: {idle:.2f} s before, "
              f"{after:.2f} s after")
        assert after <= idle + 0.3 * QUIET_SECONDS, (idle, after)
