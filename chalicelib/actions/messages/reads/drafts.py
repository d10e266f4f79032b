"""A user's drafts as the API shows them (GET /drafts, POST /register); the writes are in
actions/messages/drafts.py.
"""
from __future__ import annotations

from typing import Literal, TypedDict, cast

from chalicelib.models.channels import user_key
from chalicelib.models.drafts import Draft


class DraftDict(TypedDict):
    id: int
    type: Literal["", "stream", "private"]
    to: list[int]
    topic: str
    content: str
    timestamp: int


def draft_dict(draft: Draft) -> DraftDict:
    kind = cast(Literal["", "stream", "private"], draft.type)   # checked when stored
    return {"id": draft.draft_id, "type": kind, "to": list(draft.to or []),
            "topic": draft.topic, "content": draft.content, "timestamp": draft.timestamp}


def drafts_state(realm_id: int, user_id: int) -> list[DraftDict]:
    """The user's drafts, newest first (GET /drafts and POST /register)."""
    drafts = Draft.query(user_key(realm_id, user_id))
    return [draft_dict(d) for d in sorted(drafts, key=lambda d: d.timestamp, reverse=True)]
