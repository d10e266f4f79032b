"""POST /streams/{stream_id}/delete_topic: deletes a topic's messages in batches.

Newest first, as the reference does; each batch is one deletion transaction
(actions/message_delete.py), correct on its own. The request stops starting batches
once its time budget is spent (well under API Gateway's 29 s) and answers
`complete: false`; the same request again resumes from the messages still there, so
nothing needs to be recorded between requests. In a channel with protected history
only the messages the administrator can read are deleted, as the reference does.
"""
from __future__ import annotations

import time
from typing import TypedDict

from chalicelib.actions.message_delete import (
    RESERVED_ITEMS,
    delete_messages,
    forget_deleted,
    link_items_at_most,
)
from chalicelib.actions.message_send import check_topic
from chalicelib.actions.realms import get_realm
from chalicelib.actions.streams import access_stream_by_id, can_read_message
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError, ConflictError
from chalicelib.models.base import MAX_TRANSACTION_ITEMS
from chalicelib.models.messages import Message, topic_key
from chalicelib.models.realms import Realm
from chalicelib.models.streams import Stream, Subscription, get_stream

MESSAGES_PER_BATCH = 90
TIME_BUDGET_SECONDS = 15.0
MAX_LOST_RACES = 8   # batches in a row that lost to concurrent edits before giving up


class DeleteTopicResult(TypedDict):
    complete: bool


def check_delete_topic(caller: Principal, stream_id: int, topic_name: str
                       ) -> DeleteTopicResult:
    if not caller.is_admin:
        raise ApiError("Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    stream, subscription = access_stream_by_id(caller, stream_id)
    if stream.is_archived:
        raise ApiError("Invalid channel ID")
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
        lost = 0
        try:
            while True:
                batch = self._next_batch()
                if not batch:
                    return True
                if delete_messages(self.realm, self.stream, batch, self.caller.user_id):
                    self.deleted += batch
                    lost = 0
                    if self.listed_all:
                        return True   # no need to ask the index again
                else:
                    lost += 1   # edited or deleted meanwhile: read the topic again
                    if lost >= MAX_LOST_RACES:
                        raise ConflictError("The topic kept changing while being deleted; "
                                            "try again.")
                    self.stream = get_stream(self.realm.realm_id, self.stream.stream_id) \
                        or self.stream
                if time.monotonic() >= deadline:
                    return False
        finally:
            if self.deleted:
                forget_deleted(self.realm, self.stream, self.deleted)

    def _next_batch(self) -> list[Message]:
        """The newest messages still in the topic that the caller can read, as stored now
        (the index may lag), with room in one transaction for their upload links."""
        while True:
            candidates = self._candidates()
            self.listed_all = len(candidates) < MESSAGES_PER_BATCH
            if not candidates:
                return []
            current = {m.message_id: m for m in Message.batch_get(
                [(self.realm.realm_id, i) for i in candidates], consistent_read=True)}
            batch = [current[i] for i in candidates
                     if i in current and current[i].topic_key == self.key]
            self.elsewhere |= set(candidates) - {m.message_id for m in batch}
            if batch:
                break
        # Upload links take transaction items too: fewer messages when they do.
        while len(batch) > 1 and len(batch) + link_items_at_most(batch) \
                > MAX_TRANSACTION_ITEMS - RESERVED_ITEMS:
            batch = batch[:len(batch) // 2]
            self.listed_all = False
        return batch

    def _candidates(self) -> list[int]:
        skip = {m.message_id for m in self.deleted} | self.elsewhere
        found: list[int] = []
        for message in Message.by_topic.query(self.key, scan_index_forward=False,
                                              attributes_to_get=["realm_id", "message_id"]):
            if message.message_id in skip or not can_read_message(
                    self.stream, self.subscription, message.message_id, self.caller):
                continue
            found.append(message.message_id)
            if len(found) == MESSAGES_PER_BATCH:
                break
        return found
