"""GET /messages/{id}/history: a message's versions, oldest first, as the realm allows.

Each stored edit entry (newest first on the message) records what it changed; the
snapshots are rebuilt from the current message backwards, so each says what the
message was right after that edit. The realm's message_edit_history_visibility_policy
decides: "all", "moves" (topic and channel changes only, without any content), or
"none" (refused). The same policy trims `edit_history` on fetched messages.
"""
from __future__ import annotations

from typing import NotRequired, TypedDict

from chalicelib.actions.messages.reads.access import access_message
from chalicelib.actions.messages.reads.dicts import CONTENT_KEYS, POLICY
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.messages import Message
from chalicelib.models.realms import empty_topic_display_name, get_realm, realm_setting
from chalicelib.rules.html_diff import highlight_html_differences


class EditSnapshot(TypedDict):
    """The message right after one edit (the last one: as sent), and what that edit did."""

    topic: str
    content: str
    rendered_content: str
    timestamp: int
    user_id: int | None
    prev_topic: NotRequired[str]
    stream: NotRequired[int]
    prev_stream: NotRequired[int]
    prev_content: NotRequired[str]
    prev_rendered_content: NotRequired[str]
    content_html_diff: NotRequired[str]


class MessageHistoryResult(TypedDict):
    message_history: list[EditSnapshot]


def get_message_history(caller: Principal, message_id: int, allow_empty_topic_name: bool
                        ) -> MessageHistoryResult:
    realm = get_realm(caller.realm_id)
    policy = realm_setting(realm, POLICY)
    if policy == "none":
        raise ApiError("This organization does not show message edit history")
    message = access_message(caller, message_id).message
    display = None if allow_empty_topic_name or message.type != "stream" else \
        empty_topic_display_name(realm)
    snapshots = _snapshots(message, display)
    if policy == "moves":
        snapshots = [_without_content(s) for s in snapshots[:-1]
                     if "prev_topic" in s or "prev_stream" in s] + snapshots[-1:]
    return {"message_history": snapshots[::-1]}


def _shown(topic: str, display: str | None) -> str:
    """The empty topic as clients without allow_empty_topic_name name it."""
    return display if topic == "" and display is not None else topic


def _snapshots(message: Message, display: str | None) -> list[EditSnapshot]:
    """Newest first: one per stored edit, then the message as sent."""
    content, rendered = message.content, message.rendered_content
    topic = _shown(message.topic, display)
    snapshots: list[EditSnapshot] = []
    for edit in message.edit_history or []:
        snapshot: EditSnapshot = {"topic": topic, "content": content,
                                  "rendered_content": rendered,
                                  "timestamp": int(edit["timestamp"]),
                                  "user_id": edit.get("user_id")}
        if "prev_topic" in edit:
            topic = _shown(edit["prev_topic"], display)
            snapshot["prev_topic"] = topic
        if "prev_stream" in edit:
            snapshot["prev_stream"] = int(edit["prev_stream"])
            snapshot["stream"] = int(edit["stream"])
        if "prev_content" in edit:
            snapshot["content_html_diff"] = highlight_html_differences(
                edit["prev_rendered_content"], rendered)
            content, rendered = edit["prev_content"], edit["prev_rendered_content"]
            snapshot["prev_content"] = content
            snapshot["prev_rendered_content"] = rendered
        snapshots.append(snapshot)
    snapshots.append({"topic": topic, "content": content, "rendered_content": rendered,
                      "timestamp": int(message.date_sent), "user_id": message.sender_id})
    return snapshots


def _without_content(snapshot: EditSnapshot) -> EditSnapshot:
    trimmed = dict(snapshot)
    for key in CONTENT_KEYS:
        trimmed.pop(key, None)
    return trimmed  # type: ignore[return-value]
