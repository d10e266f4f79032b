"""The notifier's `decide` job: who of a message's recipients was away, and what to do.

The fan-out hands each batch's new messages over as decide jobs (pending.py) once their
unread markers are written; the notifier runs them. For each recipient, except the
sender and bots:

1. settings: one BatchGetItem of the recipients' user items per 100, and for a channel
   message their topic policies (followed, muted: user_topics, per 100); the
   subscriptions' own settings came with the job. With these the rules (rules.py) say
   who could be notified at all: for a plain message to a large channel with the
   default settings, nobody;
2. away? one BatchGetItem per 100 of the presence of those who could be notified only:
   a user whose last active report is within the presence timeout of the message's
   arrival is active;
3. for email: a pending item per (user, message), and the user's batching period opened
   if none is (a conditional UpdateItem); opening one sends the wake-up, delayed by
   the period (jobs.py). For push: one job per user, without delay.

A job delivered twice decides the same: the pending items are the same items, the
period is open the second time, and a message already pushed to a user is not pushed
again (notifier.py keeps a PushSent item per pushed message).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import UpdateError

from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.channels import user_key
from chalicelib.models.notifications import (
    PENDING_RETENTION,
    PERIOD_ITEM,
    EmailPeriod,
    PendingNotification,
    expiry,
    owner_key,
    pending_item,
)
from chalicelib.models.presence import Presence
from chalicelib.models.side_by_side import read_all
from chalicelib.models.topics import UserTopic, user_topic_key
from chalicelib.models.users import User
from chalicelib.notifications.jobs import (
    DecideJob,
    EmailJob,
    PushJob,
    delay_until,
    push_configured,
    send_jobs,
)
from chalicelib.notifications.rules import Reason, Recipient, reason_for
from chalicelib.rules import presence_rules
from chalicelib.rules.user_settings import effective_settings

# A period whose wake-up never came (its job went to the dead-letter queue) reopens
# after this long past its end, so the user is not silenced for good.
STALE_PERIOD_MS = 3_600_000


@dataclass(frozen=True)
class _Message:
    """One message of a decide job, with the part of its recipients the job carries."""

    realm_id: int
    message_id: int
    type: str
    sender_id: int
    stream_id: int | None
    topic: str
    flags: dict[int, frozenset[str]]
    subscriptions: dict[int, dict[str, Any]]   # only settings that differ from defaults


def decide(job: DecideJob) -> dict[str, int]:
    """Runs one decide job; returns what it did (pending items, wake-ups, push jobs)."""
    arrived_ms = int(job["arrived_ms"])
    messages = [_message(m) for m in job["messages"]]
    pushing = push_configured()
    recipients = _candidates(messages, pushing)
    active = _active({(m.realm_id, u) for m, u, _, _ in recipients}, arrived_ms / 1000)
    emails: list[PendingNotification] = []
    periods: dict[tuple[int, int], int] = {}
    pushes: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
    for message, user_id, user, recipient in recipients:
        is_active = (message.realm_id, user_id) in active
        reason = None if is_active else reason_for(recipient, "email")
        if reason is not None and user.delivery_email:
            emails.append(_pending(message, user_id, reason, arrived_ms))
            periods[(message.realm_id, user_id)] = int(
                recipient.settings["email_notifications_batching_period_seconds"])
        push_reason: Reason | None = reason_for(recipient, "push")
        if is_active and not recipient.settings["enable_online_push_notifications"]:
            push_reason = None
        if push_reason is not None and pushing:
            pushes[(message.realm_id, user_id)].append((message.message_id, push_reason))
    if emails:
        with PendingNotification.batch_write() as batch:
            for pending in emails:
                batch.save(pending)
    jobs: list[tuple[Any, int]] = []
    for (realm_id, user_id), period in sorted(periods.items()):
        due_ms = arrived_ms + period * 1000
        if _open_period(realm_id, user_id, due_ms, arrived_ms):
            wake: EmailJob = {"kind": "email", "realm_id": realm_id, "user_id": user_id,
                              "due_ms": due_ms}
            jobs.append((wake, delay_until(due_ms, arrived_ms)))
    for (realm_id, user_id), pushed in sorted(pushes.items()):
        push: PushJob = {"kind": "push", "realm_id": realm_id, "user_id": user_id,
                         "messages": pushed}
        jobs.append((push, 0))
    send_jobs(jobs)
    return {"pending": len(emails), "wakeups": sum(1 for j, _ in jobs if j["kind"] == "email"),
            "push_jobs": len(pushes)}


def _message(raw: dict[str, Any]) -> _Message:
    return _Message(int(raw["realm_id"]), int(raw["message_id"]), str(raw["type"]),
                    int(raw["sender_id"]),
                    None if raw.get("stream_id") is None else int(raw["stream_id"]),
                    str(raw.get("topic") or ""),
                    {int(u): frozenset(f) for u, f in raw["recipients"]},
                    {int(u): s for u, s in raw.get("subscriptions", [])})


def _candidates(messages: list[_Message], pushing: bool
                ) -> list[tuple[_Message, int, User, Recipient]]:
    """Each recipient some rule could notify (an active, human user), with what the
    rules need of them. Presence only decides between a reason and none: those without
    one are left out before it is read."""
    wanted = {(m.realm_id, u) for m in messages for u in m.flags if u != m.sender_id}
    users = {(u.realm_id, u.user_id): u for u in read_all(User, sorted(wanted))
             if u.is_active and not u.is_bot}
    policies = _topic_policies(messages, set(users))
    found = []
    for message in messages:
        for user_id, flags in sorted(message.flags.items()):
            user = users.get((message.realm_id, user_id))
            if user is None or user_id == message.sender_id:
                continue
            recipient = Recipient(
                flags=flags, settings=effective_settings(user.stored_settings()),
                private=message.type == "private",
                subscription=message.subscriptions.get(user_id),
                topic_policy=policies.get((message.realm_id, user_id, message.message_id), 0))
            if reason_for(recipient, "email") or (pushing and reason_for(recipient, "push")):
                found.append((message, user_id, user, recipient))
    return found


def _topic_policies(messages: list[_Message], users: set[tuple[int, int]]
                    ) -> dict[tuple[int, int, int], int]:
    """(realm, user, message) -> the user's visibility policy for the message's topic."""
    wanted: dict[tuple[str, str], list[tuple[int, int, int]]] = defaultdict(list)
    for m in messages:
        if m.type != "stream" or m.stream_id is None:
            continue
        for user_id in m.flags:
            if (m.realm_id, user_id) in users:
                wanted[(user_key(m.realm_id, user_id), user_topic_key(m.stream_id, m.topic))
                       ].append((m.realm_id, user_id, m.message_id))
    found: dict[tuple[int, int, int], int] = {}
    for item in read_all(UserTopic, sorted(wanted)):
        for key in wanted[(item.user_key, item.topic_key)]:
            found[key] = int(item.visibility_policy)
    return found


def _active(candidates: set[tuple[int, int]], arrived: float) -> set[tuple[int, int]]:
    """The candidates who reported activity within the presence timeout of `arrived`."""
    threshold = arrived - presence_rules.OFFLINE_THRESHOLD_SECONDS
    return {(p.realm_id, p.user_id) for p in read_all(Presence, sorted(candidates))
            if not p.hidden and p.active_at is not None and int(p.active_at) >= threshold}


def _pending(message: _Message, user_id: int, reason: str, arrived_ms: int
             ) -> PendingNotification:
    return PendingNotification(owner_key(message.realm_id, user_id),
                               pending_item(message.message_id),
                               message_id=message.message_id, reason=reason,
                               arrived_ms=arrived_ms, expires_at=expiry(PENDING_RETENTION))


def _open_period(realm_id: int, user_id: int, due_ms: int, now_ms: int) -> bool:
    """Opens the user's batching period unless one is open; True if this opened it."""
    period = EmailPeriod(owner_key(realm_id, user_id), PERIOD_ITEM)
    try:
        period.update(
            actions=[EmailPeriod.due_ms.set(due_ms), EmailPeriod.closed.set(False),
                     EmailPeriod.expires_at.set(expiry(PENDING_RETENTION))],
            condition=EmailPeriod.due_ms.does_not_exist() | (EmailPeriod.closed == True)
            | (EmailPeriod.due_ms < now_ms - STALE_PERIOD_MS))
    except UpdateError as error:
        if is_write_condition_failure(error):
            return False
        raise
    return True
