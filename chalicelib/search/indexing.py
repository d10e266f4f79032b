"""Writing the index: a message's postings follow its stored state.

Every message, update_message and delete_message outbox record names messages; the
fan-out's search step (`SearchIndexStep`) re-indexes each from what is stored now, not
from the record: stream records of different outbox items arrive in any order, and a
redelivery is then harmless. For each message: its terms now (`message_terms`) against
the terms its `SearchDoc` says it is indexed under; the postings of new terms are put,
those of terms it lost are deleted, then the doc is written on condition it did not
change meanwhile (else that message is indexed again, putting all its terms, so a
concurrent indexing of an older state cannot leave a term missing). A message that is
gone loses all its postings and its doc.

Postings go out by BatchWriteItem (25 items a request, side by side:
models/side_by_side.py): one posting is one write unit. A chunk's docs, each written on
its condition, go out as one transaction.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pynamodb.exceptions import TransactWriteError

from chalicelib.aws.log import logger
from chalicelib.models.base import cancellation_reasons, transaction
from chalicelib.models.messages import Message
from chalicelib.models.races import LostRace, retry_lost_races
from chalicelib.models.search import SearchDoc, SearchPosting, posting_key
from chalicelib.models.side_by_side import write_all
from chalicelib.search.terms import message_terms

MAX_BATCH_GET = 100
MAX_ATTEMPTS = 4
DocOutcome = Literal["written", "deleted", "conflict"]
# (message id, the message now or None if gone, its doc as read, its terms now)
Change = tuple[int, "Message | None", "SearchDoc | None", set[str]]


@dataclass
class IndexStats:
    """What an indexing run wrote (figures for the benchmark and the admin's backfill)."""

    messages: int = 0
    postings_put: int = 0
    postings_deleted: int = 0
    docs_written: int = 0
    docs_deleted: int = 0

    def add(self, other: IndexStats) -> None:
        self.messages += other.messages
        self.postings_put += other.postings_put
        self.postings_deleted += other.postings_deleted
        self.docs_written += other.docs_written
        self.docs_deleted += other.docs_deleted


def index_messages(realm_id: int, message_ids: Iterable[int]) -> IndexStats:
    """Brings the index of these messages in line with their stored state."""
    stats = IndexStats()
    pending = sorted(set(message_ids))
    full: set[int] = set()

    def attempt() -> IndexStats:
        """Indexes the pending messages; those whose doc changed meanwhile are read
        again and indexed in full."""
        nonlocal pending, full
        conflicted: list[int] = []
        for start in range(0, len(pending), MAX_BATCH_GET):
            chunk = pending[start:start + MAX_BATCH_GET]
            conflicted += _index_chunk(realm_id, chunk, full, stats)
        if conflicted:
            pending, full = conflicted, full | set(conflicted)
            raise LostRace()
        return stats

    if retry_lost_races(attempt, conflict=None, attempts=MAX_ATTEMPTS) is None:
        # No client to answer: the stream's worker retries the records, `admin reindex` its run.
        raise RuntimeError(f"search index of realm {realm_id} kept conflicting: {pending[:10]}")
    return stats


def _index_chunk(realm_id: int, message_ids: list[int], full: set[int],
                 stats: IndexStats) -> list[int]:
    """Indexes up to 100 messages; returns those whose doc changed meanwhile."""
    keys = [(realm_id, message_id) for message_id in message_ids]
    messages = {m.message_id: m for m in Message.batch_get(keys, consistent_read=True)}
    docs = {d.message_id: d for d in SearchDoc.batch_get(keys, consistent_read=True)}
    puts: list[SearchPosting] = []
    deletes: list[SearchPosting] = []
    changes: list[Change] = []
    for message_id in message_ids:
        message, doc = messages.get(message_id), docs.get(message_id)
        if message is None and doc is None:
            continue
        old = set(doc.terms or ()) if doc is not None else set()
        if message is not None and doc is not None and doc.version > message.version:
            continue   # a newer state was indexed after this message was read
        new = message_terms(message) if message is not None else set()
        redo = message_id in full
        if not redo and doc is not None and message is not None \
                and doc.version == message.version and old == new:
            continue   # already indexed (a redelivery, or a change of no term)
        stats.messages += 1
        puts += [SearchPosting(posting_key(realm_id, term), message_id)
                 for term in sorted(new if redo else new - old)]
        deletes += [SearchPosting(posting_key(realm_id, term), message_id)
                    for term in sorted(old - new)]
        changes.append((message_id, message, doc, new))
    # Side by side: a batch of 100 short messages is about 40 requests of postings and
    # 100 docs, seconds one after another.
    write_all(puts, deletes)
    stats.postings_put += len(puts)
    stats.postings_deleted += len(deletes)
    outcomes = _write_docs(realm_id, changes)
    stats.docs_written += outcomes.count("written")
    stats.docs_deleted += outcomes.count("deleted")
    return [change[0] for change, outcome in zip(changes, outcomes, strict=True)
            if outcome == "conflict"]


def _write_docs(realm_id: int, changes: list[Change]) -> list[DocOutcome]:
    """Records what each message is indexed under now, all in one transaction (a chunk
    holds at most 100: one request instead of one each). A doc that changed since it
    was read (another indexing ran meanwhile) cancels the transaction; it is reported
    as "conflict" and the others are written again without it."""
    outcomes: dict[int, DocOutcome] = {}
    pending = changes
    while pending:
        try:
            with transaction() as tx:
                for message_id, message, doc, terms in pending:
                    unchanged: Any = (SearchDoc.message_id.does_not_exist() if doc is None
                                      else SearchDoc.version == doc.version)
                    if message is None:
                        tx.delete(SearchDoc(realm_id, message_id), condition=unchanged)
                    else:
                        tx.save(SearchDoc(realm_id, message_id, terms=terms or None,
                                          version=message.version), condition=unchanged)
        except TransactWriteError as error:
            reasons = cancellation_reasons(error)
            if "ConditionalCheckFailed" not in reasons:
                raise   # throttled or a fault: the stream offers the records again
            for change, reason in zip(pending, reasons, strict=False):
                if reason == "ConditionalCheckFailed":
                    outcomes[change[0]] = "conflict"
            pending = [c for c in pending if c[0] not in outcomes]
            continue
        outcomes.update((c[0], "deleted" if c[1] is None else "written") for c in pending)
        break
    return [outcomes[change[0]] for change in changes]


INDEXED_EVENTS = ("message", "update_message", "delete_message")


def event_message_ids(event: dict[str, Any]) -> list[int]:
    """The messages an outbox record changes, for the index."""
    kind = event.get("type")
    if kind == "message":
        return [int(event["message"]["id"])]
    if kind in ("update_message", "delete_message"):
        return [int(m) for m in event.get("message_ids") or ()]
    return []


class SearchIndexStep:
    """The fan-out's search step: collects a batch's messages, indexes them beside the
    recipients' state and the queue appends (a client's events never wait for the
    index). Safe to run twice."""

    def __init__(self) -> None:
        self.messages: dict[int, set[int]] = {}
        self.records: dict[int, set[str]] = {}

    def collect(self, realm_id: int, sequence_number: str, event: dict[str, Any]) -> None:
        message_ids = event_message_ids(event)
        if message_ids:
            self.messages.setdefault(realm_id, set()).update(message_ids)
            self.records.setdefault(realm_id, set()).add(sequence_number)

    def flush(self) -> set[str]:
        """Indexes what was collected; returns the records of realms that failed."""
        failed: set[str] = set()
        messages, self.messages = self.messages, {}
        for realm_id, message_ids in messages.items():
            try:
                index_messages(realm_id, message_ids)
            except Exception:  # noqa: BLE001 - reported as failed records, retried
                logger.exception("search indexing failed", extra={"realm_id": realm_id})
                failed |= self.records.get(realm_id, set())
        self.records = {}
        return failed
