"""The fan-out's per-recipient work for messages: flags, unread markers, conversations.

A new message's recipients get their flags here, not in the sending request, so that a
send costs the same whatever the channel's size: the fan-out writes one unread marker
per recipient (and a flag row for the few with lasting flags) in BatchWriteItem
batches, beside the queue appends (fanout/batch.py). Until then the message is unread
for its recipients through its pending item (actions/read_state/reads/pending.py), and a
user who marks it read meanwhile is listed there: once the markers are written, those
users' markers are deleted and the pending item with them (settle_delivery). A mark per
outbox record makes a redelivered record skip those writes (a re-put would bring back a
marker its user already read). A recipient who muted the sender gets the message read.

Edits and moves change recipients' state too: a mention added or removed moves the
`mentioned` flag; a move rewrites the unread markers of the moved messages (found
through the markers' topic index), and marks them read for users who cannot read them
where they went (the stored changes: fanout/recipient_edits.py). Unsubscribing marks
the channel's messages read (an internal record).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from chalicelib.actions.read_state.pending import settle_deliveries
from chalicelib.actions.read_state.reads.flags import flags_of_users
from chalicelib.actions.read_state.reads.pending import NewMessage, new_marker, recipient_flags
from chalicelib.delivery.records import MUTED_RECORD_OP, READ_STATE_RECORD
from chalicelib.delivery.types import EventFacts, MentionFacts
from chalicelib.fanout.audience import AudienceResolver
from chalicelib.fanout.delivered_rows import (
    Delivery,
    current_messages,
    delivery_mark,
    raise_conversations,
    restorer,
)
from chalicelib.fanout.write_slices import write_spread
from chalicelib.models.alert_words import AlertWords
from chalicelib.models.channels import Subscription, user_key
from chalicelib.models.fanout_marks import FanoutMark
from chalicelib.models.message_flags import (
    MessageFlag,
    UnreadMessage,
    mention_bits,
)
from chalicelib.models.messages import Message, message_place
from chalicelib.models.muted_users import muted_by
from chalicelib.models.side_by_side import write_all
from chalicelib.notifications.pending import Delivered

MARK_RETENTION = timedelta(days=1)   # as long as the outbox keeps a record
# What only some records need is imported where it is used, not here: the fan-out
# function's cold start loads this module (bench/cold_starts.py). Edits, moves and
# deletions (fanout/recipient_edits.py), read-state records (actions/read_state/
# markers.py) and alert words (RE2, rules/patterns.py) are the rarer records' work.


def has_alert_word(words: list[str], content: str) -> bool:
    """Whole-word, case-insensitive, as the reference highlights alert words (all the
    words in one linear-time pass: rules/patterns.py)."""
    from chalicelib.rules.patterns import has_any_word

    return has_any_word(words, content)


@dataclass
class _MentionChange:
    realm_id: int
    message_id: int
    before: MentionFacts
    after: MentionFacts
    recipients: set[int] = field(default_factory=set)


class RecipientStep:
    """Per fan-out batch: computes recipients' flags at collect time, writes at flush."""

    def __init__(self, audience: AudienceResolver) -> None:
        """`audience`: the batch's audience reads, so each channel is read once a batch;
        its scope says whose state this invocation writes (fanout/scope.py)."""
        self.audience = audience
        self.scope = audience.scope
        # With the batch cut by ranges of people: waits for the other ranges' rows,
        # raising if one failed, before the messages' flight is settled.
        self.before_settle: Callable[[], None] = lambda: None
        self._alert_words: dict[int, dict[int, list[str]]] = {}
        self._muted_by: dict[tuple[int, int], set[int]] = {}
        self.deliveries: list[Delivery] = []
        self.mention_changes: list[_MentionChange] = []
        self.moves: list[tuple[int, dict[str, Any]]] = []
        self.unsubscribes: list[tuple[int, int, int]] = []
        self.mutes: list[tuple[int, int, int]] = []
        self.deletions: list[tuple[int, dict[str, Any], EventFacts]] = []
        # Told of the batch's new messages once their markers exist, before the marks
        # (chalicelib/notifications/pending.py: hands them to the notifier).
        self.on_delivered: Callable[[list[Delivered]], None] | None = None

    # -- reads shared by the batch ------------------------------------------------------

    def subscriptions(self, realm_id: int, stream_id: int) -> list[Subscription]:
        """The channel's active subscriptions, read once per batch."""
        return self.audience.subscriptions(realm_id, stream_id)

    def _readers(self, realm_id: int, stream_id: int, message_id: int) -> set[int]:
        # first_visible_message_id is 0 unless the channel's history is protected.
        return {s.user_id for s in self.subscriptions(realm_id, stream_id)
                if s.first_visible_message_id <= message_id}

    def _muting(self, realm_id: int, sender_id: int) -> set[int]:
        """Who muted the sender (one Query per sender and batch)."""
        if (realm_id, sender_id) not in self._muted_by:
            self._muted_by[realm_id, sender_id] = muted_by(realm_id, sender_id)
        return self._muted_by[realm_id, sender_id]

    def _words(self, realm_id: int) -> dict[int, list[str]]:
        if realm_id not in self._alert_words:
            self._alert_words[realm_id] = {
                int(item.user_id): list(item.words) for item in AlertWords.query(realm_id)}
        return self._alert_words[realm_id]

    # -- collect ------------------------------------------------------------------------

    def is_internal(self, event: dict[str, Any]) -> bool:
        return event.get("type") == READ_STATE_RECORD

    def collect_internal(self, realm_id: int, event: dict[str, Any]) -> None:
        if event.get("op") == "unsubscribed":
            self.unsubscribes.append((realm_id, int(event["user_id"]), int(event["stream_id"])))
        elif event.get("op") == MUTED_RECORD_OP:
            self.mutes.append((realm_id, int(event["user_id"]), int(event["sender_id"])))

    def note(self, realm_id: int, outbox_id: str, event: dict[str, Any], facts: EventFacts
             ) -> dict[str, list[str]] | None:
        """What a record changes for its recipients, kept for `flush`; for a new message,
        each recipient's flags. Every record of a batch is noted before `flush` starts."""
        kind = event.get("type")
        if kind == "message":
            flags = self._deliver(realm_id, outbox_id, event, facts)
            return {str(user_id): sorted(f) for user_id, f in flags.items()}
        if not self.scope.batch_steps:
            return None
        if kind == "delete_message":
            self.note_deletion(realm_id, event, facts)
        elif kind == "update_message":
            self._note_update(realm_id, event, facts)
        return None

    def flags_after_update(self, realm_id: int, event: dict[str, Any], facts: EventFacts,
                           queue_owners: set[int]) -> dict[str, list[str]]:
        """Each queue owner's flags for an update_message event (read only: safe beside
        `flush`, whose mention changes it applies again the same way)."""
        if event.get("type") != "update_message" or not queue_owners \
                or "message_id" not in event:
            return {}
        return self._flags_after_update(realm_id, event, facts, queue_owners)

    def _flags_after_update(self, realm_id: int, event: dict[str, Any], facts: EventFacts,
                            owners: set[int]) -> dict[str, list[str]]:
        """Each owner's flags for the edited message as they are once this batch is
        written: a delivery in the same batch, else the stored state, with the edit's
        mention changes applied."""
        message_id = int(event["message_id"])
        delivered = next((d for d in self.deliveries if (d.realm_id, d.message_id)
                          == (realm_id, message_id)), None)
        if delivered is not None:
            flags = {u: set(delivered.flags.get(u, {"read"})) for u in owners}
        else:
            flags = {int(u): set(f) for u, f in flags_of_users(realm_id, owners,
                                                               message_id).items()}
        change = facts.get("mention_change")
        if change is not None:
            from chalicelib.fanout.recipient_edits import flag_changes

            for user_id, (added, removed) in flag_changes(change, owners).items():
                flags[user_id] = (flags[user_id] - removed) | added
        return {str(u): sorted(f) for u, f in flags.items()}

    def _deliver(self, realm_id: int, outbox_id: str, event: dict[str, Any],
                 facts: EventFacts) -> dict[int, set[str]]:
        message = event["message"]
        message_id, sender_id = int(message["id"]), int(message["sender_id"])
        if message["type"] == "stream":   # the scope's range of them
            recipients = self._readers(realm_id, int(message["stream_id"]), message_id)
        else:
            recipients = {int(r["id"]) for r in message["display_recipient"]
                          if self.scope.has(int(r["id"]))}
        flags = self._flags(realm_id, event, facts, recipients, recipients | (
            {sender_id} if self.scope.has(sender_id) else set()))
        self.deliveries.append(Delivery(outbox_id, realm_id, message_id, flags, event, facts))
        return flags

    def _flags(self, realm_id: int, event: dict[str, Any], facts: EventFacts,
               recipients: set[int], users: set[int]) -> dict[int, set[str]]:
        """The flags of `users` (recipients, and the sender if among them), by the one
        rule (recipient_flags, actions/read_state/reads/pending.py): this step reads what it
        takes, the mutes and alert words, once per batch."""
        sender_id = int(event["message"]["sender_id"])
        message = NewMessage.told(sender_id, facts.get("mentions"),
                                  facts.get("read_by_sender", True))
        words = self._words(realm_id)
        muting = self._muting(realm_id, sender_id)
        content = facts.get("raw_content", "")
        return {user_id: recipient_flags(
            message, user_id, receives=user_id in recipients, muted_sender=user_id in muting,
            alert_word=user_id in words and has_alert_word(words[user_id], content))
            for user_id in users}

    def flags_of(self, delivery: Delivery, user_id: int) -> set[str] | None:
        """One person's flags for a delivered message, for a person of another range
        (None if not a recipient): their subscription read alone."""
        if user_id in delivery.flags:
            return delivery.flags[user_id]
        message = delivery.event["message"]
        if message["type"] == "stream":
            found = Subscription.get_or_none(user_key(delivery.realm_id, user_id),
                                             int(message["stream_id"]))
            readers = {user_id} if found is not None and found.active and \
                found.first_visible_message_id <= delivery.message_id else set()
        else:
            readers = {user_id} & {int(r["id"]) for r in message["display_recipient"]}
        users = readers | ({user_id} if user_id == int(message["sender_id"]) else set())
        return self._flags(delivery.realm_id, delivery.event, delivery.facts, readers,
                           users).get(user_id)

    def note_deletion(self, realm_id: int, event: dict[str, Any], facts: EventFacts) -> None:
        """A delete_message record: its messages' markers and flag rows go too."""
        self.deletions.append((realm_id, event, facts))

    def _note_update(self, realm_id: int, event: dict[str, Any], facts: EventFacts) -> None:
        change = facts.get("mention_change")
        if change is not None:
            self.mention_changes.append(_MentionChange(
                realm_id, int(event["message_id"]), change["before"], change["after"]))
        if "orig_subject" in event and ("subject" in event or "new_stream_id" in event):
            self.moves.append((realm_id, event))

    # -- flush --------------------------------------------------------------------------

    def flush(self) -> None:
        """Writes everything collected; raises if any write failed (the batch is retried:
        deliveries already complete are skipped, the rest is idempotent)."""
        self._flush_deliveries()
        if not self.scope.batch_steps:
            return
        if self.mention_changes or self.moves or self.deletions or self.unsubscribes \
                or self.mutes:
            self._flush_changes()

    def _flush_changes(self) -> None:
        """What edits, moves, deletions, unsubscriptions and mutes change."""
        from chalicelib.actions.read_state.markers import mark_channel_read, mark_sender_read
        from chalicelib.fanout.recipient_edits import apply_move, forget_deleted

        for change in self.mention_changes:
            self._apply_mention_change(change)
        for realm_id, event in self.moves:
            apply_move(realm_id, event, self._readers)
        for realm_id, event, facts in self.deletions:
            forget_deleted(realm_id, event, facts.get("participants", []))
        for realm_id, user_id, stream_id in self.unsubscribes:
            mark_channel_read(realm_id, user_id, stream_id)
        for realm_id, user_id, sender_id in self.mutes:
            mark_sender_read(realm_id, user_id, sender_id)

    def _flush_deliveries(self) -> None:
        if not self.deliveries:
            self.before_settle()
            return
        done = {delivery_mark(outbox_id) for outbox_id in self.scope.done}
        if self.scope.batch_steps:
            done = {m.mark for m in FanoutMark.batch_get(
                [delivery_mark(d.outbox_id) for d in self.deliveries], consistent_read=True)}
        pending = [d for d in self.deliveries if delivery_mark(d.outbox_id) not in done]
        if not pending:
            self.before_settle()
            return
        messages = current_messages(pending)
        rows: list[UnreadMessage | MessageFlag] = []
        for delivery in pending:
            message = messages.get((delivery.realm_id, delivery.message_id))
            if message is None:   # deleted before it was delivered
                continue
            for user_id, flags in delivery.flags.items():
                lasting = flags - {"read"}
                if "read" not in flags:
                    rows.append(new_marker(delivery.realm_id, user_id, message,
                                           mention_bits(lasting)))
                if lasting:
                    rows.append(MessageFlag(user_key(delivery.realm_id, user_id),
                                            delivery.message_id, flags=lasting,
                                            topic_key=message_place(delivery.realm_id,
                                                                    message)))
        delivered = [
            Delivered(d.realm_id, d.message_id, m.type, int(m.sender_id),
                      None if m.stream_id is None else int(m.stream_id), m.topic or "",
                      d.flags)
            for d in pending if (m := messages.get((d.realm_id, d.message_id))) is not None]
        write_spread(rows)   # a marker per reader: side by side, in slices if many
        for delivery in pending:
            message = messages.get((delivery.realm_id, delivery.message_id))
            if message is not None and message.type == "private":
                raise_conversations(delivery.realm_id, message, self.scope)
        self._follow_moves_meanwhile(pending, messages)
        if not self.scope.batch_steps:   # a range of people: settled by the batch's own
            if self.on_delivered is not None:
                self.on_delivered(delivered)
            return
        self.before_settle()
        # After every marker is written and placed.
        settle_deliveries([(d.realm_id, d.message_id, restorer(d, messages, self.flags_of))
                           for d in pending])
        if self.on_delivered is not None:
            self.on_delivered(delivered)
        expires = datetime.now(UTC) + MARK_RETENTION
        write_all([FanoutMark(delivery_mark(delivery.outbox_id), expires_at=expires)
                   for delivery in pending])

    def _follow_moves_meanwhile(self, pending: list[Delivery],
                                written: dict[tuple[int, int], Message]) -> None:
        """A move committed while the markers were written may have missed them (its own
        fan-out found the topic's markers before these existed): put them where the
        message is now. A move after this read finds them itself."""
        now = current_messages(pending)
        placed: dict[int, list[tuple[UnreadMessage, Message]]] = defaultdict(list)
        for delivery in pending:
            key = (delivery.realm_id, delivery.message_id)
            before, after = written.get(key), now.get(key)
            if before is not None and after is None:   # deleted meanwhile
                from chalicelib.fanout.recipient_edits import deletion_of, forget_deleted

                forget_deleted(delivery.realm_id, *deletion_of(before))
                continue
            if before is None or after is None or after.type != "stream" or \
                    (before.stream_id, before.topic) == (after.stream_id, after.topic):
                continue
            placed[delivery.realm_id] += [(marker, after) for marker in UnreadMessage.batch_get(
                [(user_key(delivery.realm_id, u), delivery.message_id)
                 for u in delivery.flags], consistent_read=True)]
        if placed:
            from chalicelib.fanout.recipient_edits import relocate

            for realm_id, markers in placed.items():
                relocate(realm_id, markers, self._readers)

    def _apply_mention_change(self, change: _MentionChange) -> None:
        message = Message.get_or_none(change.realm_id, change.message_id)
        if message is None:
            return
        if message.type == "stream":
            recipients = self._readers(change.realm_id, int(message.stream_id),
                                       change.message_id)
        else:
            recipients = set(message.recipient_ids)
        from chalicelib.fanout.recipient_edits import change_lasting_flags, flag_changes

        changes = flag_changes({"before": change.before, "after": change.after}, recipients)
        for user_id, (added, removed) in changes.items():
            change_lasting_flags(change.realm_id, user_id, message, added, removed)
