"""Internal outbox records: their kinds (a `type` starting with `_`, never sent to clients)
and builders; the fan-out routes them.
"""
from __future__ import annotations

from typing import Any

# Internal outbox records for the fan-out's read-state step (never sent to clients).
READ_STATE_RECORD = "_read_state"


def unsubscribed_record(user_id: int, stream_id: int) -> dict[str, Any]:
    """The record an unsubscribe writes: the fan-out marks the user's unread messages
    in the channel read (fanout/recipients.py)."""
    return {"type": READ_STATE_RECORD, "op": "unsubscribed", "user_id": user_id,
            "stream_id": stream_id}


MUTED_RECORD_OP = "muted"


def muted_record(user_id: int, muted_user_id: int) -> dict[str, Any]:
    """For the fan-out only: mark the muted user's messages read for the muter."""
    return {"type": READ_STATE_RECORD, "op": MUTED_RECORD_OP, "user_id": user_id,
            "sender_id": muted_user_id}


OUTGOING_WEBHOOK_RECORD = "_outgoing_webhook"   # outbox records the fan-out sends to SQS
# A background job of that queue: a deactivated user's messages deleted (level 459;
# written by actions/users/deactivation.py, run by actions/messages/sender_deletion.py).
SENDER_DELETION_JOB = "delete_messages_by_sender"
