"""The fan-out's notification step: hands new messages to the notifier, and reads to it.

Called by the fan-out (fanout/recipients.py) once a batch's unread markers are written
and before its per-record marks are (so a redelivered record that already passed here
is skipped, and a failed batch passes here again). For the batch's new messages it sends
`decide` jobs to the notifier's queue (decide.py says who is notified): each message's
recipients with the flags the rules read, and the subscriptions' own settings where
they differ from the defaults (the fan-out read the subscriptions already).

Deciding here read every recipient's user item, topic policy and presence inside the
fan-out: for a message to a large channel, more than its appends read, and all of it
between the message and the next batch of the shard. The notifier runs beside the
fan-out, on as many invocations as its queue needs, and nothing it decides is due
sooner than a push.

Reading a message elsewhere: the fan-out hands over the user's `read` flag events; the
messages among them that were pushed (PushSent items, one BatchGetItem per 100) get a
`remove` job.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib.models.channels import Subscription
from chalicelib.models.notifications import PushSent, owner_key, push_item
from chalicelib.models.side_by_side import read_all
from chalicelib.notifications.jobs import (
    DecideJob,
    RemoveJob,
    clock_ms,
    push_configured,
    send_jobs,
)
from chalicelib.notifications.rules import MENTION_FLAGS, WILDCARD_FLAGS

# Recipients per decide job: with every recipient flagged and every subscription set
# apart from the defaults, a job stays under SQS's 256 KB.
RECIPIENTS_PER_JOB = 1000
_RULE_FLAGS = MENTION_FLAGS | WILDCARD_FLAGS
_SUBSCRIPTION_DEFAULTS = {"is_muted": False, "email_notifications": None,
                          "push_notifications": None, "wildcard_mentions_notify": None}


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


class NotificationStep:
    """Per fan-out batch. `subscriptions(realm_id, stream_id)`: the batch's reads."""

    def __init__(self, subscriptions: Callable[[int, int], list[Subscription]]) -> None:
        self.subscriptions = subscriptions
        self.reads: dict[tuple[int, int], set[int]] = defaultdict(set)   # (realm, user)
        self.stats: dict[str, int] = defaultdict(int)

    # -- new messages -----------------------------------------------------------------

    def delivered(self, deliveries: list[Delivered]) -> None:
        """Sends the notifier the batch's new messages as decide jobs of up to
        RECIPIENTS_PER_JOB recipients: a batch's messages share jobs (the notifier then
        reads each recipient once for all of them), a larger message is split."""
        arrived_ms = clock_ms()
        jobs: list[DecideJob] = []
        size = RECIPIENTS_PER_JOB   # recipients in the last job: a full one starts anew
        for delivery in deliveries:
            settings = self._subscription_settings(delivery)
            # The sender is never notified: a message to oneself needs no job.
            recipients = sorted((u, f) for u, f in delivery.flags.items()
                                if u != delivery.sender_id)
            start = 0
            while start < len(recipients):
                if size >= RECIPIENTS_PER_JOB:
                    jobs.append({"kind": "decide", "arrived_ms": arrived_ms, "messages": []})
                    size = 0
                part = recipients[start:start + RECIPIENTS_PER_JOB - size]
                jobs[-1]["messages"].append({
                    "realm_id": delivery.realm_id, "message_id": delivery.message_id,
                    "type": delivery.type, "sender_id": delivery.sender_id,
                    "stream_id": delivery.stream_id, "topic": delivery.topic,
                    "recipients": [[u, sorted(f & _RULE_FLAGS)] for u, f in part],
                    "subscriptions": [[u, settings[u]] for u, _ in part if u in settings]})
                size += len(part)
                start += len(part)
        send_jobs([(job, 0) for job in jobs])
        self.stats["decide_jobs"] += len(jobs)

    def _subscription_settings(self, delivery: Delivered) -> dict[int, dict[str, Any]]:
        """The recipients' subscription settings that are not the defaults (the rules
        read a missing subscription as one of defaults)."""
        if delivery.type != "stream" or delivery.stream_id is None:
            return {}
        found = {}
        for s in self.subscriptions(delivery.realm_id, delivery.stream_id):
            if int(s.user_id) not in delivery.flags:
                continue
            settings = {name: getattr(s, name) for name in _SUBSCRIPTION_DEFAULTS}
            if settings != _SUBSCRIPTION_DEFAULTS:
                found[int(s.user_id)] = settings
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
