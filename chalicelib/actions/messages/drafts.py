"""Drafts stored for users who synchronize them (the reference's /drafts endpoints)."""
from __future__ import annotations

import math
from typing import Any, Literal, TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib import config
from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.messages.reads.drafts import DraftDict, draft_dict, drafts_state
from chalicelib.actions.users.users import get_own_user
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.base import (
    cancellation_reasons,
    is_condition_failure,
    transaction,
)
from chalicelib.models.channels import user_key
from chalicelib.models.drafts import Draft
from chalicelib.models.ids import allocate_ids, realm_scope
from chalicelib.models.users import User
from chalicelib.rules.timeutil import now_seconds
from chalicelib.rules.user_settings import own_settings

MAX_DRAFTS_PER_REQUEST = 40   # each is one put and (with the event) fits one transaction
MAX_TIMESTAMP = 2**53         # DynamoDB numbers hold 38 digits; no date is near this
SYNC_DISABLED = "Draft syncing is turned off in your settings."


class DraftsResult(TypedDict):
    count: int
    drafts: list[DraftDict]


class CreateDraftsResult(TypedDict):
    ids: list[int]


class DraftsAddEvent(TypedDict):
    type: Literal["drafts"]
    op: Literal["add"]
    drafts: list[DraftDict]


class DraftsUpdateEvent(TypedDict):
    type: Literal["drafts"]
    op: Literal["update"]
    draft: DraftDict


class DraftsRemoveEvent(TypedDict):
    type: Literal["drafts"]
    op: Literal["remove"]
    draft_id: int


def _check_sync_enabled(caller: Principal) -> None:
    me = get_own_user(caller)
    if not own_settings(me.stored_settings(), me.timezone)["enable_drafts_synchronization"]:
        raise ApiError(SYNC_DISABLED)


def _sync_still_enabled(tx: TransactWrite, caller: Principal) -> None:
    """In a draft's transaction, so no draft is written after synchronization is turned
    off (which deletes them all). Condition checks come first among a transaction's items."""
    setting = User.settings["enable_drafts_synchronization"]
    tx.condition_check(User, caller.realm_id, caller.user_id,
                       condition=setting.does_not_exist() | (setting == True))


def _raise_for(error: TransactWriteError) -> None:
    reasons = cancellation_reasons(error)
    if reasons and reasons[0] == "ConditionalCheckFailed":
        raise ApiError(SYNC_DISABLED) from None
    if is_condition_failure(error):
        raise ApiError("No draft with that ID exists") from None
    raise error


def check_draft(caller: Principal, index: int, raw: Any) -> dict[str, Any]:
    where = f"draft[{index}]" if index >= 0 else "draft"
    if not isinstance(raw, dict):
        raise ApiError(f"{where} must be a JSON object")
    kind = raw.get("type", "")
    to, topic, content = raw.get("to", []), raw.get("topic", ""), raw.get("content")
    if kind not in ("", "stream", "private"):
        raise ApiError(f"{where}['type'] must be '', 'stream' or 'private'")
    if not isinstance(to, list) or not all(isinstance(i, int) and not isinstance(i, bool)
                                           for i in to):
        raise ApiError(f"{where}['to'] must be a list of integers")
    if not isinstance(content, str) or not isinstance(topic, str):
        raise ApiError(f"{where} needs 'content' (and 'topic' as a string)")
    if "\x00" in content or "\x00" in topic:
        raise ApiError("Content must not contain null bytes")
    if len(content) > config.MAX_MESSAGE_LENGTH or len(topic) > config.MAX_TOPIC_LENGTH:
        raise ApiError(f"{where} is too long")
    if kind == "stream":
        if len(to) != 1:
            raise ApiError("A channel message needs exactly one channel ID in 'to'")
        access_stream_by_id(caller, to[0])
    elif kind == "private":
        users = {u.user_id for u in User.batch_get([(caller.realm_id, i) for i in set(to)])}
        if set(to) - users:
            raise ApiError("Invalid user ID")
    else:
        to, topic = [], ""
    timestamp = raw.get("timestamp", now_seconds())
    # JSON lets Infinity and NaN through, and a float can stand for 300 digits.
    if not isinstance(timestamp, (int, float)) or isinstance(timestamp, bool) or \
            not (math.isfinite(timestamp) and 0 <= timestamp < MAX_TIMESTAMP):
        raise ApiError(f"{where}['timestamp'] must be a positive number")
    return {"type": kind, "to": sorted(set(to)) if kind == "private" else to,
            "topic": topic if kind == "stream" else "", "content": content,
            "timestamp": int(timestamp)}


def get_drafts(caller: Principal) -> DraftsResult:
    _check_sync_enabled(caller)
    drafts = drafts_state(caller.realm_id, caller.user_id)
    return {"count": len(drafts), "drafts": drafts}


def create_drafts(caller: Principal, drafts: list[Any]) -> CreateDraftsResult:
    if len(drafts) > MAX_DRAFTS_PER_REQUEST:
        raise ApiError(f"At most {MAX_DRAFTS_PER_REQUEST} drafts per request")
    checked = [check_draft(caller, i, raw) for i, raw in enumerate(drafts)]
    if not checked:
        return {"ids": []}
    ids = list(allocate_ids(realm_scope(caller.realm_id), "draft", len(checked)))
    items = [Draft(user_key(caller.realm_id, caller.user_id), draft_id, **fields)
             for draft_id, fields in zip(ids, checked, strict=True)]
    try:
        with transaction() as tx:
            _sync_still_enabled(tx, caller)
            for item in items:
                tx.save(item, condition=Draft.draft_id.does_not_exist())
            added: DraftsAddEvent = {"type": "drafts", "op": "add",
                                     "drafts": [draft_dict(d) for d in items]}
            add_event(tx, caller.realm_id, added, to_users([caller.user_id]))
    except TransactWriteError as error:
        _raise_for(error)
    return {"ids": ids}


def edit_draft(caller: Principal, draft_id: int, raw: Any) -> EmptyResult:
    fields = check_draft(caller, -1, raw)
    item = Draft(user_key(caller.realm_id, caller.user_id), draft_id, **fields)
    try:
        with transaction() as tx:
            _sync_still_enabled(tx, caller)
            tx.save(item, condition=Draft.draft_id.exists())
            updated: DraftsUpdateEvent = {"type": "drafts", "op": "update",
                                          "draft": draft_dict(item)}
            add_event(tx, caller.realm_id, updated, to_users([caller.user_id]))
    except TransactWriteError as error:
        _raise_for(error)
    return {}


def delete_draft(caller: Principal, draft_id: int) -> EmptyResult:
    try:
        with transaction() as tx:
            _sync_still_enabled(tx, caller)
            tx.delete(Draft(user_key(caller.realm_id, caller.user_id), draft_id),
                      condition=Draft.draft_id.exists())
            removed: DraftsRemoveEvent = {"type": "drafts", "op": "remove",
                                          "draft_id": draft_id}
            add_event(tx, caller.realm_id, removed, to_users([caller.user_id]))
    except TransactWriteError as error:
        _raise_for(error)
    return {}
