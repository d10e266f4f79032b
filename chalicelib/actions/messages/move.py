"""Writes a message edit: the content change and/or a move of many messages, in batches.

Each batch is one transaction: the message updates (each conditioned on the version
that was read), the batch's update_message event (and delete_message for users a
channel move takes the messages from), and for the first and last batch the move
record and the notification messages. A move of more than one batch leaves a
MessageMove record, so retrying the same request after a crash finishes exactly the
messages still in the old place, with the same edit timestamp (actions/messages/move_resume.py).
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict

from pynamodb.attributes import Attribute
from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.channels.topics import note_topic_message, refresh_topic
from chalicelib.actions.messages.delete import delete_message_event
from chalicelib.actions.messages.edit_event import UpdateMessageEvent
from chalicelib.actions.messages.move_notifications import move_notifications
from chalicelib.actions.messages.move_plan import MovePlan
from chalicelib.actions.messages.prepare import PreparedMessage
from chalicelib.actions.messages.reads.audience import EditAudience
from chalicelib.actions.messages.reads.dicts import (
    EditHistoryEntry,
    TopicLink,
    recipient_id_for,
    topic_link_dicts,
)
from chalicelib.actions.messages.reads.rendering import RenderedContent
from chalicelib.actions.messages.upload_space import AttachmentDict
from chalicelib.actions.messages.uploads import AttachmentChanges, plan_attachment_changes
from chalicelib.actions.read_state.reads.pending import mention_facts
from chalicelib.actions.realm.reads.linkifiers import linkifier_rules
from chalicelib.aws.aws_errors import best_effort
from chalicelib.core.errors import ApiError, ConflictError, expectation_mismatch
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.delivery.types import EventFacts
from chalicelib.models.base import cancellation_reasons, transaction
from chalicelib.models.channels import Stream, get_stream, stream_key
from chalicelib.models.message_moves import MessageMove
from chalicelib.models.message_properties import add_property_changes
from chalicelib.models.messages import Message, topic_key
from chalicelib.models.races import LostRace, retry_lost_races
from chalicelib.models.realms import Realm, empty_topic_display_name
from chalicelib.rules.message_properties import (
    CONTENT_PROPERTIES,
    content_properties,
    is_resolved_topic,
)
from chalicelib.rules.timeutil import now_seconds

# Items per transaction are at most 100; a batch leaves room for its two events, the
# move record and two notification messages with their events and has: index rows (at
# most 4 each: a topic name can hold a link, and be resolved). The batch with the
# edited message also makes room for its upload links and its has: index changes; a
# move that resolves or unresolves a topic writes a row per message, so half as many.
MESSAGES_PER_BATCH = 82
MAX_BATCH_ATTEMPTS = 8
MOVE_RECORD_TTL = timedelta(days=2)


class UpdateMessageResult(TypedDict):
    detached_uploads: list[AttachmentDict]


def execute_edit(caller: Principal, realm: Realm, target: Message,
                 rendered: RenderedContent | None, plan: MovePlan | None, *,
                 stream: Stream | None = None,
                 prev_content_sha256: str | None = None) -> UpdateMessageResult:
    resuming = plan is not None and plan.edit_timestamp is not None
    if plan is not None and plan.finished:
        # A retry of a completed move: only the topic list may be behind, if the
        # first request stopped right after its last batch.
        _update_topics(caller.realm_id, plan, set(), [], resumed=True)
        return {"detached_uploads": []}
    edit_timestamp = plan.edit_timestamp if plan is not None and plan.edit_timestamp is not None \
        else now_seconds()
    writer = _EditWriter(caller, realm, target, rendered, plan, edit_timestamp,
                         prev_content_sha256, stream)
    messages = plan.messages if plan is not None else [target]
    if not resuming and (not messages or messages[0].message_id != target.message_id):
        messages = [target] + [m for m in messages if m.message_id != target.message_id]
    if plan is not None and plan.total is None:
        plan.total = len(messages)
    # The target's batch also carries a content edit's has: index changes; resolving or
    # unresolving a topic writes an is:resolved row beside each message.
    halve = 2 if writer.resolving is not None else 1
    per_batch = MESSAGES_PER_BATCH // halve
    first_size = max(1, (MESSAGES_PER_BATCH - writer.attachment_items() - (
        len(CONTENT_PROPERTIES) if rendered is not None else 0)) // halve)
    batches = [messages[:first_size]] + [
        messages[i:i + per_batch] for i in range(first_size, len(messages), per_batch)]
    writer.recorded = plan is not None and (resuming or len(batches) > 1)
    moved: set[int] = set()
    for index, batch in enumerate(batches):
        moved |= writer.write_batch(batch, first=index == 0 and not resuming,
                                    last=index == len(batches) - 1)
    if plan is not None:   # derived: the move stands once its batches are written
        best_effort(lambda: _update_topics(caller.realm_id, plan, moved,
                                           writer.sent_notifications, resumed=resuming),
                    "topic list after a move")
    return {"detached_uploads": writer.detached}


def _update_topics(realm_id: int, plan: MovePlan, moved: set[int],
                   notifications: list[PreparedMessage], *, resumed: bool) -> None:
    """Brings the topic list in step: the old topic first, since a case-only rename
    keeps its entry (the same key) and the new topic's update must come last."""
    old, new = plan.old_stream.stream_id, plan.new_stream.stream_id
    if moved or resumed:
        refresh_topic(realm_id, old, plan.old_topic, gone=moved)
    if resumed:   # earlier batches moved messages this request never saw
        refresh_topic(realm_id, new, plan.new_topic, gone=set())
    elif moved:
        note_topic_message(realm_id, new, plan.new_topic, max(moved))
    for note in notifications:
        note_topic_message(realm_id, note.message.stream_id, note.message.topic,
                           note.message.message_id)


class _EditWriter:
    """Builds and writes the transactions of one edit."""

    def __init__(self, caller: Principal, realm: Realm, target: Message,
                 rendered: RenderedContent | None, plan: MovePlan | None,
                 edit_timestamp: int, prev_content_sha256: str | None,
                 stream: Stream | None) -> None:
        self.caller, self.realm, self.target = caller, realm, target
        self.rendered, self.plan = rendered, plan
        self.edit_timestamp, self.prev_content_sha256 = edit_timestamp, prev_content_sha256
        self.recorded = False
        self.detached: list[AttachmentDict] = []
        self.sent_notifications: list[PreparedMessage] = []
        self._notifications: list[PreparedMessage] | None = None
        old_stream: Stream | None
        new_stream: Stream | None
        if plan is not None:
            old_stream, new_stream = plan.old_stream, plan.new_stream
        else:
            old_stream = new_stream = stream if stream is not None or target.type != "stream" \
                else get_stream(target.realm_id, target.stream_id)
        self.old_stream = old_stream
        self.audience = EditAudience(realm.realm_id, target, old_stream, new_stream)
        self.attachments: AttachmentChanges | None = None
        if rendered is not None:
            self._plan_attachments(target)
        self._topic_links: list[TopicLink] | None = None

    def topic_links(self, topic: str) -> list[TopicLink]:
        """The new topic's links (the realm's linkifiers read once per edit)."""
        if self._topic_links is None:
            rules = self.rendered.linkifiers if self.rendered is not None \
                else linkifier_rules(self.realm.realm_id, self.realm)
            self._topic_links = topic_link_dicts(topic, rules)
        return self._topic_links

    def _plan_attachments(self, target: Message) -> None:
        assert self.rendered is not None  # nosec B101 # type narrowing (set above)
        self.attachments = plan_attachment_changes(
            self.realm.realm_id, self.caller.user_id, target.message_id, target.content,
            self.rendered.content)
        most = MESSAGES_PER_BATCH - len(CONTENT_PROPERTIES) - 2   # and a resolved row
        if self.attachment_items() > most:
            raise ApiError(f"An edit may change at most {most} links to uploaded files "
                           "at once.")

    def attachment_items(self) -> int:
        return 0 if self.attachments is None else \
            len(self.attachments.link) + len(self.attachments.unlink)

    # -- one batch -------------------------------------------------------------------

    def write_batch(self, batch: list[Message], *, first: bool, last: bool) -> set[int]:
        """Writes the batch; returns the ids it changed. Re-reads and retries on a race."""
        def attempt() -> set[int]:
            nonlocal batch
            if not batch and not (self.recorded and (first or last)):
                return set()   # others moved them all; DynamoDB refuses empty transactions
            notifications = self._notifications_once() if last else []
            try:
                with transaction() as tx:
                    for message in batch:
                        tx.update(Message(message.realm_id, message.message_id),
                                  actions=self._actions(message),
                                  condition=Message.version == message.version)
                        self._property_changes(tx, message)
                    if batch:
                        self._add_events(tx, batch)
                    if first and self.recorded and self.plan is not None:
                        tx.save(self._move_record())
                    if last and self.recorded:
                        # Of two writers finishing the same move, one sends the notices.
                        tx.update(MessageMove(self.realm.realm_id, self.target.message_id),
                                  actions=[MessageMove.status.set("done")],
                                  condition=MessageMove.status == "moving")
                    if self.attachments is not None and self._has_target(batch):
                        self.attachments.apply(tx)
                    for note in notifications:
                        note.add_to(tx)
            except TransactWriteError as error:
                # Any item's cancellation (its condition, or a concurrent transaction).
                if not any(cancellation_reasons(error)):
                    raise
                if last and self.recorded and self._finished_elsewhere():
                    return set()
                batch = self._reread(batch)
                raise LostRace() from None
            if self.attachments is not None and self._has_target(batch):
                self.detached = self.attachments.detached
            self.sent_notifications = notifications
            return {m.message_id for m in batch}

        return retry_lost_races(attempt, conflict="The messages kept changing while being "
                                "edited; try again.", attempts=MAX_BATCH_ATTEMPTS)

    def _notifications_once(self) -> list[PreparedMessage]:
        # Built right before the last batch, so they follow the moved messages.
        if self._notifications is None:
            plan = self.plan
            self._notifications = [] if plan is None else move_notifications(
                self.realm, self.caller.user_id, plan, plan.total or 0)
        return self._notifications

    def _add_events(self, tx: Any, batch: list[Message]) -> None:
        ids = [m.message_id for m in batch]
        content = self.rendered is not None and self._has_target(batch)
        audience, losing = self.audience.for_batch(ids, content_changed=content)
        event, facts = self._event(batch)
        if content:
            assert self.rendered is not None  # nosec B101 # type narrowing (set above)
            probe = Message(self.target.realm_id, self.target.message_id,
                            type=self.target.type)
            self.rendered.apply_to(probe)
            # For the fan-out, which moves the mentioned flags of the users concerned.
            facts["mention_change"] = {"before": mention_facts(self.target),
                                       "after": mention_facts(probe)}
        add_event(tx, self.realm.realm_id, event, audience, facts)
        if losing and self.plan is not None:
            deleted, deleted_facts = delete_message_event(
                ids, self.plan.old_stream.stream_id, self.plan.old_topic, self.realm)
            add_event(tx, self.realm.realm_id, deleted, to_users(losing), deleted_facts)

    def _has_target(self, batch: list[Message]) -> bool:
        return any(m.message_id == self.target.message_id for m in batch)

    def _finished_elsewhere(self) -> bool:
        """Whether a concurrent retry of the same request completed this move."""
        record = MessageMove.get_or_none(self.realm.realm_id, self.target.message_id)
        return record is not None and record.status == "done" and \
            record.edit_timestamp == self.edit_timestamp

    def _reread(self, batch: list[Message]) -> list[Message]:
        """The batch's messages as stored now, minus those another edit moved away."""
        fresh = {m.message_id: m for m in Message.batch_get(
            [(m.realm_id, m.message_id) for m in batch], consistent_read=True)}
        kept = []
        for message in batch:
            current = fresh.get(message.message_id)
            if current is None:
                continue
            # Exact place, not the topic key: a case-only rename keeps the key.
            moved = (current.stream_id, current.topic) != (message.stream_id, message.topic)
            if current.message_id == self.target.message_id:
                self._check_target_unchanged(current, moved)
                self.target = current
                if self.rendered is not None:   # links may have changed meanwhile
                    self._plan_attachments(current)
                kept.append(current)
            elif self.plan is None or not moved:
                kept.append(current)
        return kept

    def _check_target_unchanged(self, current: Message, moved: bool) -> None:
        if self.prev_content_sha256 is not None and \
                current.content_sha256 != self.prev_content_sha256:

            raise expectation_mismatch("prev_content_sha256")
        if self.plan is not None and moved:
            raise ConflictError("The message was moved by someone else meanwhile; reload it.")

    # -- what is written -------------------------------------------------------------

    def _actions(self, message: Message) -> list[Any]:
        entry: EditHistoryEntry = {"user_id": self.caller.user_id,
                                 "timestamp": self.edit_timestamp}
        actions: list[Any] = []
        rendered, plan = self.rendered, self.plan
        if rendered is not None and message.message_id == self.target.message_id:
            entry["prev_content"] = message.content
            entry["prev_rendered_content"] = message.rendered_content
            probe = Message(message.realm_id, message.message_id, type=message.type)
            rendered.apply_to(probe)
            actions += [Message.content.set(probe.content),
                        Message.rendered_content.set(probe.rendered_content),
                        Message.content_sha256.set(probe.content_sha256),
                        Message.is_me_message.set(probe.is_me_message),
                        Message.last_edit_timestamp.set(self.edit_timestamp)]
            derived: list[tuple[Attribute[Any], object]] = [
                (Message.mentioned_user_ids, probe.mentioned_user_ids),
                (Message.mentioned_group_ids, probe.mentioned_group_ids),
                (Message.flagged_user_ids, probe.flagged_user_ids),
                (Message.wildcard_mention, probe.wildcard_mention)]
            for attribute, value in derived:
                actions.append(attribute.set(value) if value else attribute.remove())
        if plan is not None:
            realm_id = message.realm_id
            if plan.channel_changed:
                entry["prev_stream"] = plan.old_stream.stream_id
                entry["stream"] = plan.new_stream.stream_id
                actions += [Message.stream_id.set(plan.new_stream.stream_id),
                            Message.stream_key.set(stream_key(realm_id,
                                                              plan.new_stream.stream_id)),
                            Message.recipient_id.set(_channel_recipient_id(plan.new_stream))]
            if plan.topic_changed:
                entry["prev_topic"] = plan.old_topic
                entry["topic"] = plan.new_topic
                actions.append(Message.topic.set(plan.new_topic))
            actions.append(Message.topic_key.set(
                topic_key(realm_id, plan.new_stream.stream_id, plan.new_topic)))
            if not plan.resolve_only:
                actions.append(Message.last_moved_timestamp.set(self.edit_timestamp))
        actions += [Message.edit_history.set([entry, *(message.edit_history or [])]),
                    Message.version.set(message.version + 1)]
        return actions

    def _property_changes(self, tx: Any, message: Message) -> None:
        """The has: index follows a content edit and a move that resolves or unresolves
        the topic; the version condition above makes `message` the state read."""
        before: set[str] = set()
        after: set[str] = set()
        if self.rendered is not None and message.message_id == self.target.message_id:
            before |= content_properties(message.content, message.rendered_content)
            after |= content_properties(self.rendered.content, self.rendered.rendered)
        if self.resolving is not None and message.type == "stream":
            (after if self.resolving else before).add("resolved")
        add_property_changes(tx, message.realm_id, message.message_id, before, after)

    @property
    def resolving(self) -> bool | None:
        """True if the move resolves the topic, False if it unresolves it, else None."""
        plan = self.plan
        if plan is None or not plan.topic_changed:
            return None
        old, new = is_resolved_topic(plan.old_topic), is_resolved_topic(plan.new_topic)
        return None if old == new else new

    def _event(self, batch: list[Message]) -> tuple[UpdateMessageEvent, EventFacts]:
        target, plan = self.target, self.plan
        event: UpdateMessageEvent = {
            "type": "update_message", "user_id": self.caller.user_id,
            "edit_timestamp": self.edit_timestamp, "rendering_only": False,
            "message_id": target.message_id,
            "message_ids": sorted({m.message_id for m in batch} | {target.message_id}),
            "flags": [],
        }
        if target.type == "stream":
            old_stream = self.old_stream
            event["stream_id"] = old_stream.stream_id if old_stream else target.stream_id
            event["stream_name"] = old_stream.name if old_stream else ""
        if plan is not None:
            event["propagate_mode"] = plan.propagate_mode
            event["orig_subject"] = plan.old_topic
            if plan.topic_changed:
                event["subject"] = plan.new_topic
                event["topic_links"] = self.topic_links(plan.new_topic)
            if plan.channel_changed:
                event["new_stream_id"] = plan.new_stream.stream_id
        if self.rendered is not None and self._has_target(batch):
            event["orig_content"] = target.content
            event["orig_rendered_content"] = target.rendered_content
            event["content"] = self.rendered.content
            event["rendered_content"] = self.rendered.rendered
            event["is_me_message"] = self.rendered.content.startswith("/me ")
        if plan is None:
            return event, {}
        return event, {"empty_topic_display_name": empty_topic_display_name(self.realm)}

    def _move_record(self) -> MessageMove:
        assert self.plan is not None  # nosec B101 # type narrowing (set above)
        return MessageMove(self.realm.realm_id, self.target.message_id,
                           user_id=self.caller.user_id, edit_timestamp=self.edit_timestamp,
                           plan=self.plan.record(), status="moving",
                           expires_at=datetime.now(UTC) + MOVE_RECORD_TTL)


def _channel_recipient_id(stream: Stream) -> int:
    return recipient_id_for(f"stream:{stream.stream_id}")
