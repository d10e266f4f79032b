"""The fan-out's decide jobs (notifications/pending.py): split, compact, under SQS's limit."""
from __future__ import annotations

import json
from types import SimpleNamespace

from chalicelib.notifications import pending
from chalicelib.notifications.pending import Delivered, NotificationStep

SQS_LIMIT = 256 * 1024


def _subscription(user_id: int, changed: bool) -> SimpleNamespace:
    return SimpleNamespace(user_id=user_id, is_muted=changed, email_notifications=changed or None,
                           push_notifications=changed or None,
                           wildcard_mentions_notify=changed or None)


def _decide_jobs(monkeypatch, recipients: int, changed: bool, flags: set[str]) -> list[dict]:
    sent: list[tuple[dict, int]] = []
    monkeypatch.setattr(pending, "send_jobs", sent.extend)
    subscriptions = [_subscription(1_000_000 + n, changed or n == 7) for n in range(recipients)]
    step = NotificationStep(lambda realm_id, stream_id: subscriptions)
    step.delivered([Delivered(3, 42, "stream", 5, 9, "a" * 60,
                              {5: {"read"}, **{s.user_id: set(flags) for s in subscriptions}})])
    assert all(delay == 0 for _, delay in sent)
    return [job for job, _ in sent]


def test_a_large_channel_s_message_is_split_by_recipients(monkeypatch):
    jobs = _decide_jobs(monkeypatch, 2_500, changed=False, flags={"read"})
    assert [len(j["messages"][0]["recipients"]) for j in jobs] == [1000, 1000, 500]
    first = jobs[0]["messages"][0]
    assert first["recipients"][0] == [1_000_000, []]   # only the flags the rules read
    # Only subscriptions that differ from the defaults travel (here user 7 of 2,500).
    assert [s for j in jobs for s in j["messages"][0]["subscriptions"]] == [
        [1_000_007, {"is_muted": True, "email_notifications": True,
                     "push_notifications": True, "wildcard_mentions_notify": True}]]
    assert {j["kind"] for j in jobs} == {"decide"}
    assert 5 not in {u for j in jobs for u, _ in j["messages"][0]["recipients"]}   # sender
    assert len({j["arrived_ms"] for j in jobs}) == 1


def test_a_batch_s_messages_share_jobs_up_to_the_recipients_limit(monkeypatch):
    sent: list[tuple[dict, int]] = []
    monkeypatch.setattr(pending, "send_jobs", sent.extend)
    step = NotificationStep(lambda realm_id, stream_id: [])
    step.delivered([Delivered(3, m, "private", 5, None, "", {5: set(), 6: set(), 7: set()})
                    for m in range(3)] + [
        Delivered(3, 9, "stream", 5, 9, "t", {u: set() for u in range(10, 1510)})])
    jobs = [job for job, _ in sent]
    # 3 messages of 2 recipients and 994 of the 1,500, then the other 506.
    assert [[(m["message_id"], len(m["recipients"])) for m in j["messages"]] for j in jobs] \
        == [[(0, 2), (1, 2), (2, 2), (9, 994)], [(9, 506)]]


def test_the_largest_job_stays_under_sqs_s_limit(monkeypatch):
    jobs = _decide_jobs(monkeypatch, 1_000, changed=True,
                        flags={"mentioned", "has_alert_word", "stream_wildcard_mentioned",
                               "topic_wildcard_mentioned", "read"})
    [job] = jobs
    assert len(json.dumps(job).encode()) < SQS_LIMIT
