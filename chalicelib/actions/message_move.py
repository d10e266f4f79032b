"""Writes a message edit: the content change and/or a move of many messages, in batches.

Each batch is one transaction: the message updates (each conditioned on the version
that was read), the batch's update_message event, and for the first and last batch
the move record and the notification messages. A move of more than one batch leaves
a MessageMove record, so retrying the same request after a crash finishes exactly
the messages still in the old place, with the same edit timestamp.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.message_send import (PreparedMessage, RenderedContent,
                                             channel_audience, new_channel_message,
                                             prepare_message, render_content, user_flags)
from chalicelib.actions.streams import can_read_message, get_stream, get_subscription
from chalicelib.actions.system_bots import notification_bot
from chalicelib.actions.topics import note_topic_message, refresh_topic
from chalicelib.events.outbox import add_event
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ConflictError
from chalicelib.lib.timeutil import now_seconds
from chalicelib.models.base import cancellation_reasons, transaction
from chalicelib.models.message_moves import MessageMove
from chalicelib.models.messages import Message, topic_key
from chalicelib.models.realms import Realm
from chalicelib.models.streams import Stream, stream_key
from chalicelib.models.users import User

# Items per transaction are at most 100; a batch leaves room for its event, the move
# record and two notification messages with their events.
MESSAGES_PER_BATCH = 90
MAX_BATCH_ATTEMPTS = 8
MOVE_RECORD_TTL = timedelta(days=2)


@dataclass
class MovePlan:
    old_stream: Stream
    new_stream: Stream
    old_topic: str
    new_topic: str
    propagate_mode: str
    resolve_only: bool
    notify_old: bool
    notify_new: bool
    messages: list[Message] = field(default_factory=list)
    edit_timestamp: int | None = None    # set when resuming a recorded move
    finished: bool = False               # a retry of a move that already completed

    @property
    def channel_changed(self) -> bool:
        return self.old_stream.stream_id != self.new_stream.stream_id

    @property
    def topic_changed(self) -> bool:
        return self.old_topic != self.new_topic

    def record(self) -> dict[str, Any]:
        return {"old_stream_id": self.old_stream.stream_id,
                "new_stream_id": self.new_stream.stream_id, "old_topic": self.old_topic,
                "new_topic": self.new_topic, "propagate_mode": self.propagate_mode,
                "resolve_only": self.resolve_only, "notify_old": self.notify_old,
                "notify_new": self.notify_new}


def find_resumable_move(caller: Principal, target: Message, topic: str | None,
                        stream_id: int | None, propagate_mode: str) -> MovePlan | None:
    """The recorded move this request repeats, if the target already reached its end."""
    if target.type != "stream" or (topic is None and stream_id is None):
        return None
    record = MessageMove.get_or_none(caller.realm_id, target.message_id)
    if record is None or record.user_id != caller.user_id:
        return None
    saved = record.plan
    if (target.stream_id, target.topic) != (saved["new_stream_id"], saved["new_topic"]) or \
            propagate_mode != saved["propagate_mode"] or \
            (stream_id is not None and stream_id != saved["new_stream_id"]) or \
            (topic is not None and topic.strip() != saved["new_topic"]):
        return None
    old_stream = get_stream(caller.realm_id, saved["old_stream_id"])
    new_stream = get_stream(caller.realm_id, saved["new_stream_id"])
    if old_stream is None or new_stream is None:
        return None
    plan = MovePlan(old_stream, new_stream, saved["old_topic"], saved["new_topic"],
                    saved["propagate_mode"], saved["resolve_only"], saved["notify_old"],
                    saved["notify_new"], edit_timestamp=record.edit_timestamp,
                    finished=record.status == "done")
    if not plan.finished:
        subscription = get_subscription(caller.realm_id, caller.user_id,
                                        old_stream.stream_id)
        key = topic_key(caller.realm_id, old_stream.stream_id, plan.old_topic)
        condition = (Message.message_id >= target.message_id
                     if plan.propagate_mode == "change_later" else None)
        from chalicelib.actions.message_edit import MOVE_ATTRIBUTES

        plan.messages = [
            m for m in Message.by_topic.query(key, range_key_condition=condition,
                                              attributes_to_get=MOVE_ATTRIBUTES)
            if m.topic_key == key and m.message_id != target.message_id
            and can_read_message(old_stream, subscription, m.message_id, caller)]
    return plan


def execute_edit(caller: Principal, realm: Realm, target: Message,
                 rendered: RenderedContent | None, plan: MovePlan | None, *,
                 prev_content_sha256: str | None = None) -> dict[str, Any]:
    if plan is not None and plan.finished:
        return {"detached_uploads": []}
    resuming = plan is not None and plan.edit_timestamp is not None
    edit_timestamp = plan.edit_timestamp if resuming and plan else now_seconds()
    writer = _EditWriter(caller, realm, target, rendered, plan, edit_timestamp,
                         prev_content_sha256)
    messages = plan.messages if plan is not None else [target]
    if not resuming and (not messages or messages[0].message_id != target.message_id):
        messages = [target] + [m for m in messages if m.message_id != target.message_id]
    batches = [messages[i:i + MESSAGES_PER_BATCH]
               for i in range(0, len(messages), MESSAGES_PER_BATCH)] or [[]]
    writer.recorded = resuming or len(batches) > 1
    notifications = writer.notifications(len(messages)) if plan is not None else []
    moved: set[int] = set()
    for index, batch in enumerate(batches):
        last = index == len(batches) - 1
        moved |= writer.write_batch(batch, first=index == 0 and not resuming, last=last,
                                    notifications=notifications if last else [])
    if plan is not None:
        _update_topics(caller.realm_id, plan, moved, notifications)
    return {"detached_uploads": writer.detached}


def _update_topics(realm_id: int, plan: MovePlan, moved: set[int],
                   notifications: list[PreparedMessage]) -> None:
    if moved:
        note_topic_message(realm_id, plan.new_stream.stream_id, plan.new_topic, max(moved))
        refresh_topic(realm_id, plan.old_stream.stream_id, plan.old_topic, gone=moved)
    for note in notifications:
        note_topic_message(realm_id, note.message.stream_id, note.message.topic,
                           note.message.message_id)


class _EditWriter:
    """Builds and writes the transactions of one edit."""

    def __init__(self, caller: Principal, realm: Realm, target: Message,
                 rendered: RenderedContent | None, plan: MovePlan | None,
                 edit_timestamp: int, prev_content_sha256: str | None) -> None:
        self.caller, self.realm, self.target = caller, realm, target
        self.rendered, self.plan = rendered, plan
        self.edit_timestamp, self.prev_content_sha256 = edit_timestamp, prev_content_sha256
        self.recorded = False
        self.detached: list[dict[str, Any]] = []
        self.attachments = None
        if rendered is not None:
            from chalicelib.actions.uploads import plan_attachment_changes

            self.attachments = plan_attachment_changes(
                realm.realm_id, caller.user_id, target.message_id, target.content,
                rendered.content)

    # -- one batch -------------------------------------------------------------------

    def write_batch(self, batch: list[Message], *, first: bool, last: bool,
                    notifications: list[PreparedMessage]) -> set[int]:
        """Writes the batch; returns the ids it changed. Re-reads and retries on a race."""
        for _ in range(MAX_BATCH_ATTEMPTS):
            try:
                with transaction() as tx:
                    for message in batch:
                        tx.update(Message(message.realm_id, message.message_id),
                                  actions=self._actions(message),
                                  condition=Message.version == message.version)
                    if batch:
                        add_event(tx, self.realm.realm_id, self._event(batch),
                                  self._audience(batch))   # type: ignore[arg-type]
                    if first and self.recorded and self.plan is not None:
                        tx.save(self._move_record())
                    if last and self.recorded:
                        tx.update(MessageMove(self.realm.realm_id, self.target.message_id),
                                  actions=[MessageMove.status.set("done")])
                    if self.attachments is not None and self._has_target(batch):
                        self.attachments.apply(tx)
                    for note in notifications:
                        note.add_to(tx)
            except TransactWriteError as error:
                if not any(cancellation_reasons(error)):
                    raise
                batch = self._reread(batch)
                continue
            if self.attachments is not None and self._has_target(batch):
                self.detached = self.attachments.detached
            return {m.message_id for m in batch}
        raise ConflictError("The messages kept changing while being edited; try again.")

    def _has_target(self, batch: list[Message]) -> bool:
        return any(m.message_id == self.target.message_id for m in batch)

    def _reread(self, batch: list[Message]) -> list[Message]:
        """The batch's messages as stored now, minus those another edit moved away."""
        fresh = {m.message_id: m for m in Message.batch_get(
            [(m.realm_id, m.message_id) for m in batch], consistent_read=True)}
        kept = []
        for message in batch:
            current = fresh.get(message.message_id)
            if current is None:
                continue
            if current.message_id == self.target.message_id:
                self._check_target_unchanged(message, current)
                self.target = current
                kept.append(current)
            elif self.plan is None or current.topic_key == message.topic_key:
                kept.append(current)
        return kept

    def _check_target_unchanged(self, read: Message, current: Message) -> None:
        if self.prev_content_sha256 is not None and \
                current.content_sha256 != self.prev_content_sha256:
            from chalicelib.actions.message_edit import prev_content_mismatch

            raise prev_content_mismatch()
        if self.plan is not None and current.topic_key != read.topic_key:
            raise ConflictError("The message was moved by someone else meanwhile; reload it.")

    # -- what is written -------------------------------------------------------------

    def _actions(self, message: Message) -> list[Any]:
        entry: dict[str, Any] = {"user_id": self.caller.user_id,
                                 "timestamp": self.edit_timestamp}
        actions: list[Any] = []
        rendered, plan = self.rendered, self.plan
        if rendered is not None and message.message_id == self.target.message_id:
            entry["prev_content"] = message.content
            entry["prev_rendered_content"] = message.rendered_content
            probe = Message(message.realm_id, message.message_id)
            rendered.apply_to(probe)
            actions += [Message.content.set(probe.content),
                        Message.rendered_content.set(probe.rendered_content),
                        Message.content_sha256.set(probe.content_sha256),
                        Message.is_me_message.set(probe.is_me_message),
                        Message.last_edit_timestamp.set(self.edit_timestamp)]
            for attribute, value in ((Message.mentioned_user_ids, probe.mentioned_user_ids),
                                     (Message.mentioned_group_ids, probe.mentioned_group_ids),
                                     (Message.wildcard_mention, probe.wildcard_mention)):
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

    def _event(self, batch: list[Message]) -> dict[str, Any]:
        target, plan = self.target, self.plan
        event: dict[str, Any] = {
            "type": "update_message", "user_id": self.caller.user_id,
            "edit_timestamp": self.edit_timestamp, "rendering_only": False,
            "message_id": target.message_id,
            "message_ids": sorted({m.message_id for m in batch} | {target.message_id}),
            "flags": [],
        }
        if target.type == "stream":
            old_stream = plan.old_stream if plan else get_stream(target.realm_id,
                                                                target.stream_id)
            event["stream_id"] = old_stream.stream_id if old_stream else target.stream_id
            event["stream_name"] = old_stream.name if old_stream else ""
        if plan is not None:
            event["propagate_mode"] = plan.propagate_mode
            event["orig_subject"] = plan.old_topic
            if plan.topic_changed:
                event["subject"] = plan.new_topic
                event["topic_links"] = []
            if plan.channel_changed:
                event["new_stream_id"] = plan.new_stream.stream_id
            event["_empty_topic_display_name"] = _empty_topic_display(self.realm)
        if self.rendered is not None and self._has_target(batch):
            event.update({"orig_content": target.content,
                          "orig_rendered_content": target.rendered_content,
                          "content": self.rendered.content,
                          "rendered_content": self.rendered.rendered,
                          "is_me_message": self.rendered.content.startswith("/me ")})
        return event

    def _audience(self, batch: list[Message]) -> dict[str, Any]:
        target = self.target
        if target.type == "private":
            audience: dict[str, Any] = {"users": sorted(target.recipient_ids)}
        elif self.plan is not None:
            audience = {"streams": sorted({self.plan.old_stream.stream_id,
                                           self.plan.new_stream.stream_id})}
        else:
            audience = {"streams": [target.stream_id]}
        if self.rendered is not None and self._has_target(batch):
            probe = Message(target.realm_id, target.message_id, sender_id=target.sender_id)
            self.rendered.apply_to(probe)
            audience["user_flags"] = user_flags(probe, self.rendered.resolved,
                                                target.sender_id)
        return audience

    def _move_record(self) -> MessageMove:
        assert self.plan is not None
        return MessageMove(self.realm.realm_id, self.target.message_id,
                           user_id=self.caller.user_id, edit_timestamp=self.edit_timestamp,
                           plan=self.plan.record(), status="moving",
                           expires_at=datetime.now(timezone.utc) + MOVE_RECORD_TTL)

    # -- notification messages ------------------------------------------------------

    def notifications(self, count: int) -> list[PreparedMessage]:
        plan = self.plan
        if plan is None or not (plan.notify_old or plan.notify_new):
            return []
        actor = User.get(self.realm.realm_id, self.caller.user_id)
        who = f"@_**{actor.full_name}|{actor.user_id}**"
        old = f"#**{plan.old_stream.name}>{plan.old_topic}**"
        new = f"#**{plan.new_stream.name}>{plan.new_topic}**"
        whole = plan.propagate_mode == "change_all"
        texts = []
        if plan.notify_new:
            text = (f"This topic was moved here from {old} by {who}." if whole else
                    f"A message was moved here from {old} by {who}." if count == 1 else
                    f"{count} messages were moved here from {old} by {who}.")
            texts.append((plan.new_stream, plan.new_topic, text))
        if plan.notify_old:
            text = (f"This topic was moved to {new} by {who}." if whole else
                    f"A message was moved from this topic to {new} by {who}." if count == 1
                    else f"{count} messages were moved from this topic to {new} by {who}.")
            texts.append((plan.old_stream, plan.old_topic, text))
        bot = notification_bot(self.realm.realm_id)
        prepared = []
        for stream, topic, text in texts:
            rendered = render_content(self.realm.realm_id, text)
            message = new_channel_message(self.realm, bot.user_id, stream, topic, rendered,
                                          client="Internal")
            prepared.append(prepare_message(self.realm, bot, message, rendered,
                                            channel_audience(stream)))
        return prepared


def _channel_recipient_id(stream: Stream) -> int:
    from chalicelib.actions.message_dicts import recipient_id_for

    return recipient_id_for(f"stream:{stream.stream_id}")


def _empty_topic_display(realm: Realm) -> str:
    from chalicelib.actions.realm_settings import realm_setting

    return str(realm_setting(realm, "realm_empty_topic_display_name"))

