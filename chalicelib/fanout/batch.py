"""The outbox stream handler: resolves each event's audience to live queues and appends.

Safe to run twice on the same records: appends skip events already in a queue (dedup
keys, delivery/append.py). A record that fails is reported alone (partial batch failure),
so one poison record does not hold back the ones after it. The events of one batch that
go to the same queue are appended together, in stream order, as one chunk; then the
queue's WebSocket connection gets them and a waiting long-poll is woken.

Order within a batch, in two passes over its records. First each record is noted:
what it changes for its recipients (flags, unread markers, notifications) and what the
search index gets; both are then written in the background while the second pass
resolves each record's audience to queues and forms. Then the payloads are stored once
(queues refer to them) and the queue appends and webhook jobs go out. A client may see
a message before its unread marker exists: until the markers are written the message's
PendingDelivery says who has read it, and every reader consults it first
(actions/read_state/reads/pending.py). Writing the markers first was half of a loaded
batch's time, all of it before any delivery; starting them only after the audience
reads left one of the two cores idle during those reads.
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chalicelib.actions.users.reads.email_access import email_form
from chalicelib.aws import metrics
from chalicelib.aws.log import logger
from chalicelib.aws.partial_batch import (
    EntireBatchFailed,
    ItemFailure,
    PartialBatchResponse,
    process_records,
)
from chalicelib.delivery.append import Pending
from chalicelib.delivery.filters import forms_for_queue, stored_reader_settings
from chalicelib.delivery.outbox import Audience, stored_audience, stored_facts
from chalicelib.delivery.payloads import PayloadStore
from chalicelib.delivery.records import OUTGOING_WEBHOOK_RECORD
from chalicelib.delivery.types import EventFacts
from chalicelib.fanout.audience import AudienceResolver
from chalicelib.fanout.audience_slices import (
    RANGE_KEY,
    RangeSlices,
    encoded,
    plan_ranges,
    range_scope,
)
from chalicelib.fanout.recipients import RecipientStep
from chalicelib.fanout.scope import EVERYONE, Scope
from chalicelib.fanout.slices import SliceResponse, append_all, append_pool
from chalicelib.models.events import EventQueue, Outbox
from chalicelib.notifications.pending import NotificationStep
from chalicelib.search.indexing import SearchIndexStep

if TYPE_CHECKING:
    from chalicelib.actions.users.reads.access import EventAccess
    from chalicelib.narrow.evaluate import ReaderContext

# Chalice needs a literal ARN when app.py is imported; the merge template replaces it
# with the outbox table's real stream ARN (infra/template.json), and the local stack's
# poller maps it to the local outbox table.
OUTBOX_STREAM_ARN_PLACEHOLDER = (
    "arn:aws:dynamodb:us-east-1:000000000000:table/teamchat-outbox/stream/placeholder")

# The recipients' state of a batch is written, and its audiences' queues read, beside
# the second pass and the appends (FanoutBatch.start_background_steps); pools of their
# own, since these steps use the append and writer pools themselves.
_recipients_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="recipients")
_audience_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="audiences")


def handle_stream_batch(raw_event: dict[str, Any], context: Any = None) \
        -> PartialBatchResponse:
    logger.append_keys(handler="fanout",
                       request_id=getattr(context, "aws_request_id", None))
    try:
        records = raw_event.get("Records") or []
        scopes = plan_ranges(records)
        others = None
        if scopes is not None:   # a large audience: other ranges of people elsewhere
            others = RangeSlices(scopes[1:])
            others.start(records, run_range_here)
        batch = FanoutBatch(scopes[0] if scopes else EVERYONE)
        if others is not None:
            batch.recipients.before_settle = others.wait_rows
        failures, failed = run_batch(batch, records)
        delivered = batch.appended
        if others is not None:
            failed |= others.failed(batch.collected)
            delivered += others.delivered()
        reported = {f["itemIdentifier"] for f in failures}
        if records and len(reported) == len(records):
            raise EntireBatchFailed(f"all {len(records)} records failed")
        for sequence_number in sorted(failed - reported, key=_sequence_order):
            failures.append({"itemIdentifier": sequence_number})
        metrics.add_events_delivered(delivered)
        return {"batchItemFailures": failures}
    finally:
        metrics.add_fanout_delay(raw_event.get("Records", []))
        metrics.flush()
        logger.remove_keys(["handler", "request_id"])


def run_batch(batch: FanoutBatch, records: list[dict[str, Any]]
              ) -> tuple[list[ItemFailure], set[str]]:
    """The batch's two passes and its writes: the records that failed in a pass (as
    reported items), and those whose writes failed."""
    failures = process_records({"Records": records}, batch.note, "dynamodb",
                               raise_if_all_fail=False)["batchItemFailures"]
    batch.start_background_steps()
    failures += process_records({"Records": batch.noted_records()}, batch.address,
                                "dynamodb", raise_if_all_fail=False)["batchItemFailures"]
    return failures, batch.flush()   # the flush waits for the background steps


def handle_range(payload: dict[str, Any]) -> SliceResponse:
    """An invocation carrying a range of people of another invocation's batch."""
    batch = FanoutBatch(range_scope(payload))
    failures, failed = run_batch(batch, payload["records"])
    return {"failed": sorted(failed | {f["itemIdentifier"] for f in failures}),
            "rows_failed": batch.recipients_failed, "delivered": batch.appended}


def run_range_here(payload: dict[str, Any]) -> SliceResponse:
    """Outside Lambda (or without concurrency): the range, through its JSON form, here."""
    return handle_range(encoded(payload)[RANGE_KEY])


def _sequence_order(sequence_number: str) -> tuple[int, str]:
    return (int(sequence_number), "") if sequence_number.isdigit() else (0, sequence_number)


def commit_time_ms(raw: dict[str, Any], outbox: Outbox) -> int:
    """When the record was committed, at the earliest (the dedup window starts there).

    DynamoDB's own time, rounded down to the second, and the writer's clock."""
    approximate = raw.get("dynamodb", {}).get("ApproximateCreationDateTime")
    times = [int(outbox.created)]
    if isinstance(approximate, (int, float)):
        times.append(int(approximate * 1000))
    return min(times)


@dataclass
class _QueueAppends:
    queue: EventQueue
    items: list[Pending] = field(default_factory=list)
    sequence_numbers: set[str] = field(default_factory=set)


@dataclass
class _Noted:
    """An outbox record after the first pass, waiting for its audience."""
    raw: dict[str, Any]
    outbox: Outbox
    event: dict[str, Any]
    facts: EventFacts
    audience: Audience
    flags: dict[str, list[str]] | None   # a new message's recipients' flags


class FanoutBatch:
    """Collects the appends of one stream batch, then performs them queue by queue.

    `audience` holds the batch's audience reads (channels, subscribers, queues), for
    the audiences and for any per-record step that needs the same facts.
    """

    def __init__(self, scope: Scope = EVERYONE) -> None:
        self.scope = scope   # whose work this is: everyone's, or a range's (scope.py)
        self.pending: dict[str, _QueueAppends] = {}
        self.audience = AudienceResolver(scope)
        self.recipients_failed = False
        self.payloads = PayloadStore()
        self.webhook_jobs: list[tuple[str, dict[str, Any]]] = []
        self.appended = 0
        self._access: EventAccess | None = None
        # Flags, unread markers, conversations; it reads channels' subscriptions through
        # the batch's audience reads.
        self.recipients = RecipientStep(self.audience)
        # Missed-message email and push: hands new messages and reads to the notifier.
        self.notifications = NotificationStep(self.audience.subscriptions)
        self.recipients.on_delivered = self.notifications.delivered
        self.collected: set[str] = set()
        self.noted: dict[str, _Noted] = {}
        self.search = SearchIndexStep()   # the full-text index, beside the appends
        self._recipients_written: Future[bool] | None = None
        self._indexed: Future[set[str]] | None = None
        # Queue owners' topic and channel settings, read once a batch, only for queues
        # narrowed by is:muted.
        self._reader_settings: dict[tuple[int, int], ReaderContext] = {}

    @property
    def access(self) -> EventAccess:
        """can_access_all_users_group, its reads cached. Only events about a user need
        it, so its module is loaded when the first comes (the function's cold start
        does not: bench/cold_starts.py)."""
        if self._access is None:
            from chalicelib.actions.users.reads.access import EventAccess

            self._access = EventAccess()
        return self._access

    def reader_settings(self, realm_id: int, user_id: int) -> ReaderContext:
        if (realm_id, user_id) not in self._reader_settings:
            self._reader_settings[realm_id, user_id] = stored_reader_settings(realm_id, user_id)
        return self._reader_settings[realm_id, user_id]

    # ---- first pass: what each record changes beyond the queues ----------------------

    def note(self, raw: dict[str, Any]) -> None:
        image = raw.get("dynamodb", {}).get("NewImage")
        # Only a full INSERT is an outbox record; moto also emits key-only INSERTs and
        # no-op MODIFYs, and TTL expiry emits REMOVEs.
        if raw.get("eventName") != "INSERT" or not image or "event" not in image:
            return
        outbox = Outbox.from_raw_data(image)
        sequence_number = raw["dynamodb"]["SequenceNumber"]
        event, audience = outbox.event, stored_audience(outbox.audience)
        facts = stored_facts(outbox.facts)
        batch_steps = self.scope.batch_steps   # else another invocation does them
        if event.get("type") == OUTGOING_WEBHOOK_RECORD:   # for the webhook queue, not clients
            if batch_steps:
                self.webhook_jobs.append((sequence_number, event))
            return
        self.collected.add(sequence_number)
        if batch_steps:
            self.search.collect(outbox.realm_id, sequence_number, event)
        if self.recipients.is_internal(event):
            if batch_steps:
                self.recipients.collect_internal(outbox.realm_id, event)
            return
        if batch_steps:
            self.notifications.note_flags(outbox.realm_id, event, audience)
        flags = self.recipients.note(outbox.realm_id, outbox.outbox_id, event, facts)
        self.noted[sequence_number] = _Noted(raw, outbox, event, facts, audience, flags)

    def noted_records(self) -> list[dict[str, Any]]:
        """The records the second pass takes, in stream order."""
        return [noted.raw for noted in self.noted.values()]

    def start_background_steps(self) -> None:
        """The recipients' state and the search index need nothing of the queues: they
        are written while the second pass runs. The audiences' queue reads start here
        too, each record's beside the others' and beside those writes, rather than one
        after another as the second pass reaches them."""
        for noted in self.noted.values():
            self.audience.prefetch(noted.outbox.realm_id, noted.audience, _audience_pool)
        self._indexed = append_pool.submit(self.search.flush)
        self._recipients_written = _recipients_pool.submit(self._flush_recipients)

    # ---- second pass: each record's queues and forms ----------------------------------

    def address(self, raw: dict[str, Any]) -> None:
        sequence_number = raw["dynamodb"]["SequenceNumber"]
        noted = self.noted[sequence_number]
        outbox, event, facts, audience = noted.outbox, noted.event, noted.facts, noted.audience
        since = commit_time_ms(raw, outbox)
        queues = [q for q in self.audience.queues(outbox.realm_id, audience)
                  if role_may_see(q, audience)]
        user_flags = noted.flags if noted.flags is not None else \
            self.recipients.flags_after_update(outbox.realm_id, event, facts,
                                               {q.user_id for q in queues})
        for queue in queues:
            shown: dict[str, Any] | None = event
            if audience.get("user_access") is not None and not self.access.may_access(
                    outbox.realm_id, queue, int(audience["user_access"])):
                shown = self.access.hidden_form(outbox.realm_id, event, queue)
            elif "actor_outside_channel" in facts and not self.access.may_access(
                    outbox.realm_id, queue, facts["actor_outside_channel"]):
                shown = self.access.actor_hidden(outbox.realm_id, event)
            if shown is not None:   # a person's real address only where the owner may see it
                shown = email_form(shown, facts, int(queue.user_id), queue.role)
            forms = forms_for_queue(shown, facts, queue, user_flags, self.reader_settings) \
                if shown is not None else []
            if not forms:
                continue
            appends = self.pending.setdefault(queue.queue_id, _QueueAppends(queue))
            appends.items.extend(
                Pending(f"{outbox.outbox_id}:{i}",
                        self.payloads.stored_form(outbox.outbox_id, form), since, form)
                for i, form in enumerate(forms))
            appends.sequence_numbers.add(sequence_number)

    # ---- the writes -------------------------------------------------------------------

    def flush(self) -> set[str]:
        """Writes what the batch collected; returns the sequence numbers that failed.
        If the payloads could not be written, no event is appended; if they or the
        recipients' state failed, the whole batch is offered again (appends and the
        recipients' steps already done are skipped the second time). Returns only once
        the background steps have ended."""
        assert self._indexed is not None and self._recipients_written is not None, \
            "start_background_steps comes first"  # nosec B101 # an order of calls, checked
        try:
            self.payloads.write()
        except Exception:  # noqa: BLE001 - reported as failed records, retried by the stream
            logger.exception("payloads failed")
            self.pending = {}
            self._recipients_written.result()
            return set(self.collected) | self._flush_webhook_jobs() | self._indexed.result()
        failed = self._flush_webhook_jobs() | self._flush_queues()
        if not self._recipients_written.result():
            failed |= set(self.collected)
        return failed | self._indexed.result()

    def _flush_recipients(self) -> bool:
        """The recipients' state, then the notifications it decides; False if it failed."""
        try:
            self.recipients.flush()
            self.notifications.flush()
        except Exception:  # noqa: BLE001 - reported as failed records, retried by the stream
            logger.exception("recipient state failed")
            self.recipients_failed = True
            return False
        return True

    def _flush_webhook_jobs(self) -> set[str]:
        """Sends the batch's webhook jobs to SQS; returns the records that failed."""
        jobs, self.webhook_jobs = self.webhook_jobs, []
        if not jobs:
            return set()
        from chalicelib.delivery.webhook_jobs import enqueue_jobs  # loaded when needed

        return enqueue_jobs(jobs)

    def _flush_queues(self) -> set[str]:
        work = list(self.pending.values())
        self.pending = {}
        results = append_all([(a.queue, a.items) for a in work])
        failed: set[str] = set()
        for appends, added in zip(work, results, strict=True):
            if added is None:
                failed |= appends.sequence_numbers
            else:
                self.appended += added
        return failed


def role_may_see(queue: EventQueue, audience: Audience) -> bool:
    """Audiences with max_role reach only queues whose owner's role is at least that."""
    max_role = audience.get("max_role")
    return max_role is None or queue.role is None or queue.role <= int(max_role)
