"""POST /streams/{stream_id}/delete_topic: deletes a topic's messages in batches.

Newest first, as the reference does; each batch is one deletion transaction
(actions/messages/delete.py), correct on its own: the messages come from the topic
index (one eventually consistent Query a batch) and each delete is conditioned on the
version listed, so a lagging index or an edit meanwhile only makes that batch read its
messages again, consistently. The request stops starting batches
once its time budget is spent (well under API Gateway's 29 s) and answers
`complete: false`; the same request again resumes from the messages still there, so
nothing needs to be recorded between requests. In a channel with protected history
only the messages the administrator can read are deleted, as the reference does.
"""
from __future__ import annotations

import time
from typing import TypedDict

from chalicelib import config
from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.channels.topics import check_topic
from chalicelib.actions.messages.delete import (
    RESERVED_ITEMS,
    delete_messages,
    forget_deleted,
    link_items_at_most,
)
from chalicelib.actions.messages.reads.access import can_read_message
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, UNKNOWN_CHANNEL_ID, ApiError, ErrorCode
from chalicelib.core.principal import Principal
from chalicelib.models.base import MAX_TRANSACTION_ITEMS
from chalicelib.models.channels import Stream, Subscription, get_stream
from chalicelib.models.messages import Message, topic_key
from chalicelib.models.races import LostRace, retry_lost_races
from chalicelib.models.realms import Realm, get_realm

MESSAGES_PER_BATCH = 90
# What deleting needs of a message: its place, version and (for upload links) content.
DELETE_ATTRIBUTES = ["realm_id", "message_id", "type", "stream_id", "topic", "topic_key",
                     "recipient_ids", "content", "version"]
TIME_BUDGET_SECONDS = 15.0
MAX_LOST_RACES = 8   # attempts of one batch that lost to concurrent edits before giving up


class DeleteTopicResult(TypedDict):
    complete: bool


def check_delete_topic(caller: Principal, stream_id: int, topic_name: str
                       ) -> DeleteTopicResult:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED, code=ErrorCode.UNAUTHORIZED_PRINCIPAL)
    if len(topic_name.strip()) > config.MAX_TOPIC_LENGTH:   # no topic has such a name
        raise ApiError(f"Topic too long (limit: {config.MAX_TOPIC_LENGTH} characters)")
    stream, subscription = access_stream_by_id(caller, stream_id)
    if stream.is_archived:
        raise ApiError(UNKNOWN_CHANNEL_ID)
    realm = get_realm(caller.realm_id)
    topic = check_topic(topic_name, realm, stream, enforce_policy=False)
    deadline = time.monotonic() + TIME_BUDGET_SECONDS
    deleter = _TopicDeleter(caller, realm, stream, subscription, topic)
    complete = deleter.run(deadline)
    return {"complete": complete}


class _TopicDeleter:
    def __init__(self, caller: Principal, realm: Realm, stream: Stream,
                 subscription: Subscription | None, topic: str) -> None:
        self.caller, self.realm, self.stream = caller, realm, stream
        self.subscription, self.topic = subscription, topic
        self.key = topic_key(realm.realm_id, stream.stream_id, topic)
        self.deleted: list[Message] = []
        self.elsewhere: set[int] = set()   # listed by the (lagging) index, moved away
        self.listed_all = False   # the last batch held every message the index listed

    def run(self, deadline: float) -> bool:
        """Deletes batches until none is left (True) or the time is up (False)."""
        try:
            while True:
                batch = self._next_batch()
                if not batch:
                    return True
                self._delete(batch)
                if self.listed_all:
                    return True   # no need to ask the index again
                if time.monotonic() >= deadline:
                    return False
        finally:
            if self.deleted:
                forget_deleted(self.realm, self.stream, self.deleted)

    def _delete(self, batch: list[Message]) -> None:
        """Deletes the batch as the index showed it; if any message changed since (the
        index lags, or an edit came between), as stored now (a consistent read)."""
        def attempt() -> None:
            nonlocal batch
            if delete_messages(self.realm, self.stream, batch, self.caller.user_id):
                self.deleted += batch
                return
            batch = self._as_stored([m.message_id for m in batch])
            if not batch:
                return
            self.stream = get_stream(self.realm.realm_id, self.stream.stream_id) or self.stream
            raise LostRace()

        retry_lost_races(attempt, conflict="The topic kept changing while being deleted; "
                         "try again.", attempts=MAX_LOST_RACES)

    def _next_batch(self) -> list[Message]:
        """The newest messages the index lists in the topic that the caller can read, with
        room in one transaction for their upload links."""
        skip = {m.message_id for m in self.deleted} | self.elsewhere
        batch: list[Message] = []
        for message in Message.by_topic.query(self.key, scan_index_forward=False,
                                              page_size=MESSAGES_PER_BATCH,
                                              attributes_to_get=DELETE_ATTRIBUTES):
            if message.message_id in skip or message.topic_key != self.key or \
                    not can_read_message(self.stream, self.subscription, message.message_id,
                                         self.caller):
                continue
            batch.append(message)
            if len(batch) == MESSAGES_PER_BATCH:
                break
        self.listed_all = len(batch) < MESSAGES_PER_BATCH
        # Upload links take transaction items too: fewer messages when they do.
        while len(batch) > 1 and len(batch) + link_items_at_most(batch) \
                > MAX_TRANSACTION_ITEMS - RESERVED_ITEMS:
            batch = batch[:len(batch) // 2]
            self.listed_all = False
        return batch

    def _as_stored(self, message_ids: list[int]) -> list[Message]:
        """These messages as stored now, less those no longer in the topic."""
        current = {m.message_id: m for m in Message.batch_get(
            [(self.realm.realm_id, i) for i in message_ids], consistent_read=True,
            attributes_to_get=DELETE_ATTRIBUTES)}
        batch = [current[i] for i in message_ids
                 if i in current and current[i].topic_key == self.key]
        self.elsewhere |= set(message_ids) - {m.message_id for m in batch}
        return batch
