"""The fan-out's notification step: who was away when a message arrived, and what to do.

Called by the fan-out (events/recipients.py) once a batch's unread markers are written
and before its per-record marks are (so a redelivered record that already passed here
is skipped, and a failed batch passes here again, idempotently). For each recipient of
each new message, except its sender and bots:

1. settings: one BatchGetItem of the recipients' user items per 100, and for a channel
   message their topic policies (followed, muted: user_topics, per 100); the
   subscriptions come from the fan-out's own reads of the channel. With these the rules
   (rules.py) say who could be notified at all: for a plain message to a large channel
   with the default settings, nobody;
2. away? one BatchGetItem per 100 of the presence of those who could be notified only:
   a user whose last active report is within the presence timeout of the message is
   active (reading everyone's presence first was a third of the reads of such a
   message, and decided nothing);
3. for email: a pending item per (user, message), and the user's batching period opened
   if none is (a conditional UpdateItem); opening one sends the wake-up, delayed by
   the period (jobs.py). For push: one job per user, without delay.

Reading a message elsewhere: the fan-out hands over the user's `read` flag events; the
messages among them that were pushed (PushSent items, one BatchGetItem per 100) get a
`remove` job.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import UpdateError

from chalicelib import config
from chalicelib.lib import presence_rules
from chalicelib.lib.user_settings import effective_settings
from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.channels import Subscription, user_key
from chalicelib.models.notifications import (
    PENDING_RETENTION,
    PERIOD_ITEM,
    EmailPeriod,
    PendingNotification,
    PushSent,
    expiry,
    owner_key,
    pending_item,
    push_item,
)
from chalicelib.models.presence import Presence
from chalicelib.models.side_by_side import read_all
from chalicelib.models.topics import UserTopic, user_topic_key
from chalicelib.models.users import User
from chalicelib.notifications.jobs import (
    EmailJob,
    PushJob,
    RemoveJob,
    clock_ms,
    delay_until,
    send_jobs,
)
from chalicelib.notifications.rules import Reason, Recipient, reason_for

# A period whose wake-up never came (its job went to the dead-letter queue) reopens
# after this long past its end, so the user is not silenced for good.
STALE_PERIOD_MS = 3_600_000
# Reads ahead (NotificationStep.read_ahead); its own pool, since the reads use the
# side_by_side pool for their pages.
_reads_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="notification-reads")


@dataclass(frozen=True)
class Delivered:
    """A new message as the fan-out delivered it: its place and every recipient's flags."""

    realm_id: int
    message_id: int
    type: str                      # "stream" or "private"
    sender_id: int
    stream_id: int | None
    topic: str
    flags: dict[int, set[str]]


@dataclass(frozen=True)
class _Facts:
    """What deciding a batch's notifications reads: when, and each recipient some rule
    could notify (an active, human user) with what the rules need of them; who of
    these is active."""

    now_ms: int
    active: set[tuple[int, int]]
    recipients: list[tuple[Delivered, int, User, Recipient]]


def push_configured() -> bool:
    return bool(config.sns_apns_platform_arn() or config.sns_fcm_platform_arn())


class NotificationStep:
    """Per fan-out batch. `subscriptions(realm_id, stream_id)`: the batch's reads."""

    def __init__(self, subscriptions: Callable[[int, int], list[Subscription]]) -> None:
        self.subscriptions = subscriptions
        self.reads: dict[tuple[int, int], set[int]] = defaultdict(set)   # (realm, user)
        self.stats: dict[str, int] = defaultdict(int)
        self._ahead: tuple[list[Delivered], Future[_Facts]] | None = None

    # -- new messages -----------------------------------------------------------------

    def read_ahead(self, deliveries: list[Delivered]) -> None:
        """Starts the reads that `delivered` of these deliveries needs (presence,
        settings, topic policies), while the fan-out writes the markers it must wait
        for: they are half of the recipients' steps of a large channel's message."""
        if deliveries:
            self._ahead = (deliveries, _reads_pool.submit(self._facts, deliveries))

    def delivered(self, deliveries: list[Delivered]) -> None:
        if not deliveries:
            return
        ahead, self._ahead = self._ahead, None
        facts = ahead[1].result() if ahead is not None and ahead[0] is deliveries \
            else self._facts(deliveries)
        now_ms, active = facts.now_ms, facts.active
        emails: list[PendingNotification] = []
        periods: dict[tuple[int, int], int] = {}
        pushes: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
        for delivery, user_id, user, recipient in facts.recipients:
            is_active = (delivery.realm_id, user_id) in active
            reason = None if is_active else reason_for(recipient, "email")
            if reason is not None and user.delivery_email:
                emails.append(_pending(delivery, user_id, reason, now_ms))
                periods[(delivery.realm_id, user_id)] = int(
                    recipient.settings["email_notifications_batching_period_seconds"])
            push_reason: Reason | None = reason_for(recipient, "push")
            if is_active and not recipient.settings["enable_online_push_notifications"]:
                push_reason = None
            if push_reason is not None and push_configured():
                pushes[(delivery.realm_id, user_id)].append((delivery.message_id, push_reason))
        if emails:
            with PendingNotification.batch_write() as batch:
                for pending in emails:
                    batch.save(pending)
        jobs: list[tuple[Any, int]] = []
        for (realm_id, user_id), period in sorted(periods.items()):
            due_ms = now_ms + period * 1000
            if _open_period(realm_id, user_id, due_ms, now_ms):
                wake: EmailJob = {"kind": "email", "realm_id": realm_id, "user_id": user_id,
                                  "due_ms": due_ms}
                jobs.append((wake, delay_until(due_ms, now_ms)))
        for (realm_id, user_id), messages in sorted(pushes.items()):
            push: PushJob = {"kind": "push", "realm_id": realm_id, "user_id": user_id,
                             "messages": messages}
            jobs.append((push, 0))
        send_jobs(jobs)
        self.stats["pending"] += len(emails)
        self.stats["wakeups"] += sum(1 for job, _ in jobs if job["kind"] == "email")
        self.stats["push_jobs"] += len(pushes)

    def _facts(self, deliveries: list[Delivered]) -> _Facts:
        now_ms = clock_ms()
        wanted = {(d.realm_id, u) for d in deliveries for u in d.flags if u != d.sender_id}
        users = {(u.realm_id, u.user_id): u for u in read_all(User, sorted(wanted))
                 if u.is_active and not u.is_bot}
        policies = self._topic_policies(deliveries, set(users))
        recipients = []
        for delivery in deliveries:
            subscriptions = self._subscriptions(delivery, set(users))
            for user_id, flags in sorted(delivery.flags.items()):
                user = users.get((delivery.realm_id, user_id))
                if user is None or user_id == delivery.sender_id:
                    continue
                recipient = Recipient(
                    flags=frozenset(flags), settings=effective_settings(user.stored_settings()),
                    private=delivery.type == "private",
                    subscription=subscriptions.get(user_id),
                    topic_policy=policies.get((delivery.realm_id, user_id,
                                               delivery.message_id), 0))
                # Presence only decides between a reason and none: without one, skip.
                if reason_for(recipient, "email") or (
                        push_configured() and reason_for(recipient, "push")):
                    recipients.append((delivery, user_id, user, recipient))
        active = _active({(d.realm_id, u) for d, u, _, _ in recipients}, now_ms / 1000)
        return _Facts(now_ms, active, recipients)

    def _subscriptions(self, delivery: Delivered, users: set[tuple[int, int]]
                       ) -> dict[int, dict[str, Any]]:
        if delivery.type != "stream" or delivery.stream_id is None:
            return {}
        return {s.user_id: {"is_muted": s.is_muted,
                            "email_notifications": s.email_notifications,
                            "push_notifications": s.push_notifications,
                            "wildcard_mentions_notify": s.wildcard_mentions_notify}
                for s in self.subscriptions(delivery.realm_id, delivery.stream_id)
                if (delivery.realm_id, s.user_id) in users}

    @staticmethod
    def _topic_policies(deliveries: list[Delivered], users: set[tuple[int, int]]
                        ) -> dict[tuple[int, int, int], int]:
        """(realm, user, message) -> the user's visibility policy for the message's topic."""
        wanted: dict[tuple[str, str], list[tuple[int, int, int]]] = defaultdict(list)
        for d in deliveries:
            if d.type != "stream" or d.stream_id is None:
                continue
            for user_id in d.flags:
                if (d.realm_id, user_id) in users:
                    wanted[(user_key(d.realm_id, user_id),
                            user_topic_key(d.stream_id, d.topic))].append(
                        (d.realm_id, user_id, d.message_id))
        found: dict[tuple[int, int, int], int] = {}
        for item in read_all(UserTopic, sorted(wanted)):
            for key in wanted[(item.user_key, item.topic_key)]:
                found[key] = int(item.visibility_policy)
        return found

    # -- reads elsewhere ----------------------------------------------------------------

    def note_flags(self, realm_id: int, event: dict[str, Any],
                   audience: Mapping[str, object]) -> None:
        """A user's messages marked read: their pushes are to be removed."""
        if event.get("type") != "update_message_flags" or event.get("op") != "add" or \
                event.get("flag") != "read" or not push_configured():
            return
        users = audience.get("users")
        if isinstance(users, list) and len(users) == 1:
            self.reads[(realm_id, int(users[0]))] |= {int(i) for i in event.get("messages", [])}

    def flush(self) -> None:
        """Sends a `remove` job per user whose read messages had been pushed."""
        reads, self.reads = self.reads, defaultdict(set)
        keys = [(owner_key(r, u), push_item(m)) for (r, u), ids in sorted(reads.items())
                for m in sorted(ids)]
        pushed: dict[str, list[int]] = defaultdict(list)
        for item in read_all(PushSent, keys):
            pushed[item.owner].append(int(item.message_id))
        jobs: list[tuple[Any, int]] = []
        for owner, ids in sorted(pushed.items()):
            realm_id, user_id = (int(part) for part in owner.split("#"))
            job: RemoveJob = {"kind": "remove", "realm_id": realm_id, "user_id": user_id,
                              "message_ids": sorted(ids)}
            jobs.append((job, 0))
        send_jobs(jobs)


def _active(candidates: set[tuple[int, int]], arrived: float) -> set[tuple[int, int]]:
    """The candidates who reported activity within the presence timeout of `arrived`."""
    threshold = arrived - presence_rules.OFFLINE_THRESHOLD_SECONDS
    return {(p.realm_id, p.user_id) for p in read_all(Presence, sorted(candidates))
            if not p.hidden and p.active_at is not None and int(p.active_at) >= threshold}


def _pending(delivery: Delivered, user_id: int, reason: str, now_ms: int
             ) -> PendingNotification:
    return PendingNotification(owner_key(delivery.realm_id, user_id),
                               pending_item(delivery.message_id),
                               message_id=delivery.message_id, reason=reason,
                               arrived_ms=now_ms, expires_at=expiry(PENDING_RETENTION))


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
