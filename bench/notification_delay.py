"""Delay from send to missed-message email and to push on the local stack (`make run`).

Run: .venv/bin/python -m bench.notification_delay
Starts a local stack in a temporary state directory, sets the recipient's batching
period to PERIOD seconds, registers a phone, sends direct messages and times the .eml
file and the `[push]` line.
"""
from __future__ import annotations

import statistics
import time

import requests

from infra.local.launcher import fresh_stack

PERIOD = 2
ROUNDS = 5


def main() -> None:
    with fresh_stack() as stack:
        state = stack.state_dir
        accounts = stack.accounts()
        owner, member = accounts["owner"], accounts["member"]
        api = stack.url + "/api/v1"
        as_member = (member["email"], member["api_key"])
        as_owner = (owner["email"], owner["api_key"])
        me = requests.get(api + "/users/me", auth=as_member, timeout=10).json()
        assert requests.patch(api + "/settings", auth=as_member, timeout=10, data={
            "email_notifications_batching_period_seconds": PERIOD}).json()["result"] \
            == "success"
        assert requests.post(api + "/users/me/android_gcm_reg_id", auth=as_member,
                             timeout=10, data={"token": "delay-phone"}).json()[
            "result"] == "success"
        log = state.parent / f"stack-{stack.port}.log"
        mail = state / "mail"
        emails, pushes = [], []
        for n in range(ROUNDS):
            before = set(mail.glob("*.eml")) if mail.exists() else set()
            pushed_before = log.read_text().count("[push] message")
            started = time.perf_counter()
            response = requests.post(api + "/messages", auth=as_owner, timeout=10, data={
                "type": "direct", "to": f"[{me['user_id']}]", "content": f"ping {n}"})
            assert response.json()["result"] == "success", response.text
            push_at = email_at = None
            while time.perf_counter() - started < PERIOD + 30 and email_at is None:
                now = time.perf_counter() - started
                if push_at is None and log.read_text().count("[push] message") > \
                        pushed_before:
                    push_at = now
                if mail.exists() and set(mail.glob("*.eml")) - before:
                    email_at = now
                time.sleep(0.02)
            assert push_at is not None and email_at is not None, (push_at, email_at)
            pushes.append(push_at)
            emails.append(email_at)
            time.sleep(PERIOD + 0.5)   # the next message opens a new period
        print(f"batching period {PERIOD} s, {ROUNDS} direct messages, local stack:")
        print(f"  send -> push  median {statistics.median(pushes) * 1000:.0f} ms "
              f"(max {max(pushes) * 1000:.0f} ms)")
        print(f"  send -> email median {statistics.median(emails) * 1000:.0f} ms "
              f"= period {PERIOD * 1000} ms + "
              f"{(statistics.median(emails) - PERIOD) * 1000:.0f} ms overhead "
              f"(max {max(emails) * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
