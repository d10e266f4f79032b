"""Deleting a deactivated user's messages (DELETE /users/{id} `actions`, level 459): a job
of the background queue, which the deactivation's transaction records, so that a
deactivation asking for it always gets it.

The job reads the user's messages from the by_sender index, newest first, keeps those
of the kinds asked for (public channels, private channels, direct messages), and
deletes them a conversation's batch at a time through the one deletion writer
(actions/messages/delete.py: each batch with its delete_message event), until none is
left or the invocation's time is spent; then it hands itself back to the queue. Safe to
run twice: what is gone is not listed again.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from itertools import groupby
from typing import Any

from chalicelib.actions.messages.delete import (
    RESERVED_ITEMS,
    delete_messages,
    forget_deleted,
    link_items_at_most,
)
from chalicelib.aws.log import logger
from chalicelib.models.base import MAX_TRANSACTION_ITEMS
from chalicelib.models.channels import Stream, get_stream
from chalicelib.models.messages import Message, sender_key
from chalicelib.models.realms import Realm, get_realm

MESSAGES_PER_BATCH = 90
PAGE = 200
INVOCATION_SECONDS = 60.0


def run_sender_deletion(data: dict[str, Any], deadline: float | None = None) -> bool:
    """Deletes what it has time for; True once nothing of the kinds asked is left. The
    job (actions/users/deactivation._action_writes): realm_id, user_id (whose messages),
    actor_id (who deactivated them: the deleter the events name), kinds (public,
    private, direct)."""
    deadline = time.monotonic() + INVOCATION_SECONDS if deadline is None else deadline
    realm = get_realm(int(data["realm_id"]))
    user_id, actor_id = int(data["user_id"]), int(data["actor_id"])
    kinds = set(data["kinds"])
    streams: dict[int, Stream | None] = {}
    deleted = 0
    for batch, stream in _batches(realm, user_id, kinds, streams):
        if delete_messages(realm, stream, batch, actor_id):
            forget_deleted(realm, stream, batch)
            deleted += len(batch)
        # A batch that changed since read (an edit) is listed again by the next run.
        if time.monotonic() >= deadline:
            logger.info("sender deletion paused", extra={"deleted": deleted})
            return False
    logger.info("sender deletion done", extra={"realm_id": realm.realm_id,
                                               "user_id": user_id, "deleted": deleted})
    return True


def _batches(realm: Realm, user_id: int, kinds: set[str],
             streams: dict[int, Stream | None]
             ) -> Iterator[tuple[list[Message], Stream | None]]:
    """Batches of one conversation's messages of the kinds asked, newest first."""
    def wanted(message: Message) -> bool:
        return _kind(realm.realm_id, message, streams) in kinds

    messages = (m for m in Message.by_sender.query(
        sender_key(realm.realm_id, user_id), scan_index_forward=False, page_size=PAGE)
        if m.sender_id == user_id and wanted(m))
    for _, run in groupby(messages, key=_conversation):
        pending = list(run)
        while pending:
            batch = pending[:MESSAGES_PER_BATCH]
            while len(batch) > 1 and len(batch) + link_items_at_most(batch) \
                    > MAX_TRANSACTION_ITEMS - RESERVED_ITEMS:
                batch = batch[:len(batch) // 2]
            pending = pending[len(batch):]
            sample = batch[0]
            yield batch, streams.get(int(sample.stream_id)) if sample.type == "stream" \
                else None


def _conversation(message: Message) -> tuple[object, ...]:
    if message.type == "stream":
        return ("stream", int(message.stream_id), message.topic.lower())
    return ("direct", tuple(sorted(message.recipient_ids)))


def _kind(realm_id: int, message: Message, streams: dict[int, Stream | None]) -> str:
    if message.type != "stream":
        return "direct"
    stream_id = int(message.stream_id)
    if stream_id not in streams:
        streams[stream_id] = get_stream(realm_id, stream_id)
    stream = streams[stream_id]
    if stream is None:
        return "gone"
    return "private" if stream.invite_only else "public"
