"""Internal outbox records: their kinds (a `type` starting with `_`, never sent to clients),
shapes and builders; the fan-out routes them.
"""
from __future__ import annotations

from typing import Any, Literal, TypedDict

# Internal outbox records for the fan-out's read-state step (never sent to clients).
READ_STATE_RECORD: Literal["_read_state"] = "_read_state"
MUTED_RECORD_OP: Literal["muted"] = "muted"
OUTGOING_WEBHOOK_RECORD: Literal["_outgoing_webhook"] = "_outgoing_webhook"   # sent to SQS


class UnsubscribedRecord(TypedDict):
    type: Literal["_read_state"]
    op: Literal["unsubscribed"]
    user_id: int
    stream_id: int


class MutedRecord(TypedDict):
    type: Literal["_read_state"]
    op: Literal["muted"]
    user_id: int
    sender_id: int


class WebhookJobRecord(TypedDict):
    """An outgoing webhook's delivery job (delivery/webhook_jobs.py: DeliveryJob's fields)."""

    type: Literal["_outgoing_webhook"]
    realm_id: int
    message_id: int
    bot_id: int
    trigger: str
    message: dict[str, Any]   # the message as its receivers get it (no schema: any keys)


class BackgroundJobRecord(TypedDict):
    """Another background job sharing the webhook queue (`job` names it: realm exports)."""

    type: Literal["_outgoing_webhook"]
    job: str
    realm_id: int
    export_id: int


class SenderDeletionJob(TypedDict):
    """A deactivated user's messages deleted, one conversation batch at a time (level 459;
    written by actions/users/deactivation.py, run by actions/messages/sender_deletion.py)."""

    type: Literal["_outgoing_webhook"]
    job: str   # SENDER_DELETION_JOB
    realm_id: int
    user_id: int
    actor_id: int
    kinds: list[str]   # "public", "private", "direct"


def unsubscribed_record(user_id: int, stream_id: int) -> UnsubscribedRecord:
    """The record an unsubscribe writes: the fan-out marks the user's unread messages
    in the channel read (fanout/recipients.py)."""
    return {"type": READ_STATE_RECORD, "op": "unsubscribed", "user_id": user_id,
            "stream_id": stream_id}


def muted_record(user_id: int, muted_user_id: int) -> MutedRecord:
    """For the fan-out only: mark the muted user's messages read for the muter."""
    return {"type": READ_STATE_RECORD, "op": MUTED_RECORD_OP, "user_id": user_id,
            "sender_id": muted_user_id}


OUTGOING_WEBHOOK_RECORD = "_outgoing_webhook"   # outbox records the fan-out sends to SQS
# A background job of that queue: a deactivated user's messages deleted (level 459;
# written by actions/users/deactivation.py, run by actions/messages/sender_deletion.py).
SENDER_DELETION_JOB = "delete_messages_by_sender"
